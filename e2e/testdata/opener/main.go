// Command opener is the test browser of the end-to-end tests (url_e2e_test.go, and
// tmux_test.go where curl is missing), run by elicitty through $ELICITTY_OPENER with the
// consented URL as its last argument.
//
// It appends two JSON lines to the -record file: when it starts, the URL and a snapshot
// of the -wire log file (elicitty's --log) as it was then; when it ends, what the consent
// page said after approval, or the error (the URL is in the first line only, so it
// appears once per run). In between it approves the demo server's consent page:
//
//   - by default with a plain POST to URL/approve, as a scripted browser would;
//   - with -chromium PATH, by starting that headless Chromium, loading the page and
//     clicking its #approve button through the Chrome DevTools Protocol (over
//     --remote-debugging-pipe, so no port has to be found or polled);
//   - with -noop, not at all (for URLs that must never be fetched).
//
// It exits 0 on success and 1 on failure (the record line says why).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// record is one line of the -record file.
type record struct {
	Event  string `json:"event"`         // "invoked" or "done"
	URL    string `json:"url,omitempty"` // only in "invoked", so it appears once per run
	Wire   string `json:"wire,omitempty"`
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

func main() {
	recordPath := flag.String("record", "", "append one JSON line per invocation to this file")
	wirePath := flag.String("wire", "", "elicitty's --log file, snapshotted when the opener starts")
	chromium := flag.String("chromium", "", "approve with this headless Chromium instead of a POST")
	noop := flag.Bool("noop", false, "record the invocation only")
	flag.Parse()
	if flag.NArg() != 1 || *recordPath == "" {
		fmt.Fprintln(os.Stderr, "usage: opener -record FILE [-wire FILE] [-chromium PATH | -noop] URL")
		os.Exit(2)
	}
	start := record{Event: "invoked", URL: flag.Arg(0)}
	if *wirePath != "" {
		b, err := os.ReadFile(*wirePath)
		if err != nil {
			start.Error = "read wire log: " + err.Error()
		}
		start.Wire = string(b)
	}
	if err := appendRecord(*recordPath, start); err != nil || start.Error != "" {
		os.Exit(1)
	}
	done := record{Event: "done"}
	var err error
	switch {
	case *noop:
	case *chromium != "":
		done.Status, err = approveInChromium(*chromium, start.URL)
	default:
		done.Status, err = approveByPost(start.URL)
	}
	if err != nil {
		done.Error = err.Error()
	}
	if err := appendRecord(*recordPath, done); err != nil || done.Error != "" {
		os.Exit(1)
	}
}

// appendRecord appends rec as one JSON line to the file name.
func appendRecord(name string, rec record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// approveByPost submits the consent page's form.
func approveByPost(url string) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Post(url+"/approve", "application/x-www-form-urlencoded", nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST URL/approve: %s", resp.Status)
	}
	if !bytes.Contains(body, []byte(`id="status"`)) {
		return "", errors.New("the page returned after approval has no #status")
	}
	return "approved by POST", nil
}

// approveInChromium loads url in a fresh headless Chromium, clicks #approve and returns
// the text of the page's #status after the form was submitted.
func approveInChromium(path, url string) (status string, err error) {
	profile, err := os.MkdirTemp("", "elicitty-opener-chromium")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(profile)
	// Chromium reads commands from fd 3 and writes replies and events to fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, evW}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start chromium: %w", err)
	}
	cmdR.Close()
	evW.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		// Ask politely, then make sure: no Chromium outlives the opener.
		cmdW.Close()
		select {
		case <-exited:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	// A watchdog: a Chromium that never answers must not hang the test.
	timer := time.AfterFunc(15*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()

	c := &cdp{w: cmdW, r: bufio.NewReader(evR)}
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return "", err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return "", err
	}
	sid := attached.SessionID
	if err := c.call(sid, "Page.enable", nil, nil); err != nil {
		return "", err
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := c.call(sid, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return "", err
	}
	if nav.ErrorText != "" {
		return "", fmt.Errorf("load the consent page: %s", nav.ErrorText)
	}
	if err := c.waitEvent(sid, "Page.loadEventFired"); err != nil {
		return "", err
	}
	clicked, err := c.eval(sid, `(() => { const b = document.getElementById('approve'); if (!b) return false; b.click(); return true })()`)
	if err != nil {
		return "", err
	}
	if clicked != true {
		return "", errors.New("the consent page has no #approve button")
	}
	// The click submits the form; the approved page is the next load.
	if err := c.waitEvent(sid, "Page.loadEventFired"); err != nil {
		return "", err
	}
	text, err := c.eval(sid, `(document.getElementById('status') || {}).textContent || ''`)
	if err != nil {
		return "", err
	}
	s, _ := text.(string)
	if !strings.Contains(s, "Approved") {
		return s, fmt.Errorf("after clicking #approve the page says %q", s)
	}
	_ = c.send("", "Browser.close", nil)
	return s, nil
}

// cdp is a minimal, sequential Chrome DevTools Protocol client over Chromium's pipe:
// messages are JSON terminated by a NUL byte. Events read while waiting for a reply
// are queued for waitEvent.
type cdp struct {
	w      io.Writer
	r      *bufio.Reader
	nextID int
	events []message
}

type message struct {
	ID        int             `json:"id"`
	SessionID string          `json:"sessionId"`
	Method    string          `json:"method"`
	Result    json.RawMessage `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *cdp) send(session, method string, params any) error {
	c.nextID++
	m := map[string]any{"id": c.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	if session != "" {
		m["sessionId"] = session
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, 0))
	return err
}

func (c *cdp) read() (message, error) {
	b, err := c.r.ReadBytes(0)
	if err != nil {
		return message{}, fmt.Errorf("read from chromium: %w", err)
	}
	var m message
	if err := json.Unmarshal(b[:len(b)-1], &m); err != nil {
		return message{}, fmt.Errorf("chromium sent unreadable JSON: %w", err)
	}
	return m, nil
}

// call sends a command and decodes its result into out (nil discards it).
func (c *cdp) call(session, method string, params, out any) error {
	if err := c.send(session, method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	id := c.nextID
	for {
		m, err := c.read()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.Method != "" {
			c.events = append(c.events, m)
			continue
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	}
}

// waitEvent returns once the event method arrives for session (queued or new).
func (c *cdp) waitEvent(session, method string) error {
	for i, m := range c.events {
		if m.Method == method && m.SessionID == session {
			c.events = append(c.events[:i:i], c.events[i+1:]...)
			return nil
		}
	}
	for {
		m, err := c.read()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", method, err)
		}
		if m.Method == method && m.SessionID == session {
			return nil
		}
	}
}

// eval runs a JavaScript expression in the page and returns its value.
func (c *cdp) eval(session, expr string) (any, error) {
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := c.call(session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("evaluate %q: %s", expr, res.ExceptionDetails.Text)
	}
	return res.Result.Value, nil
}
