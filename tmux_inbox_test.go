package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/proxy/inbox"
)

// inboxDir is a private runtime directory for a test's proxies and inboxes (mode 0700,
// as the inbox requires; t.TempDir's directories are 0755).
func inboxDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// colourAsk is the demo's mrtr_one form as a proxy forwards it for a host.
func colourAsk() *elicit.Request {
	return &elicit.Request{Server: "demo", ServerInfo: "elicitty-demo", Host: "Claude Desktop", Origin: elicit.OriginPush,
		Call: "tools/call mrtr_one", Tool: "mrtr_one", Protocol: "2025-11-25", Mode: elicit.ModeForm, Message: "Pick a colour",
		Schema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","title":"Colour","oneOf":[` +
			`{"const":"red","title":"Red"},{"const":"green","title":"Green"},{"const":"blue","title":"Blue"}]}},"required":["color"]}`)}
}

// TestTmuxInboxAnswersAProxyAsk runs `elicitty inbox` in a terminal against a proxy's
// broker in this process: the inbox lists the proxy, the ask opens as the usual form
// with the host and the server, rings the bell, and the typed answer reaches the
// proxy; an ask the proxy withdraws leaves the screen with its reason; quitting the
// inbox leaves an unanswered ask pending in the proxy; --list prints the proxy.
func TestTmuxInboxAnswersAProxyAsk(t *testing.T) {
	t.Parallel()
	dir := inboxDir(t)
	b, err := inbox.Listen(dir, inbox.BrokerOptions{Host: "Claude Desktop", Server: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tm := startTerm(t, termOptions{env: []string{"ELICITTY_RUNTIME_DIR=" + dir}, rawOutput: true}, "inbox")
	tm.waitFor("Proxies", "Claude Desktop", "› demo", fmt.Sprintf("pid %d", os.Getpid()), "Inbox: 0 pending")

	answered := make(chan elicit.Response, 1)
	go func() {
		r, err := b.Answer(context.Background(), colourAsk())
		if err != nil {
			r = elicit.Response{Action: elicit.Action("error: " + err.Error())}
		}
		answered <- r
	}()
	tm.waitFocus("Colour *")
	tm.waitFor(`Input requested by "Claude Desktop › demo" during tools/call mrtr_one`, "Pick a colour")
	tm.keys("Down")
	tm.waitFor("┃ > Green")
	tm.keys("Enter")
	tm.waitFor(`"color": "green"`, "[ Accept ]")
	tm.keys("a")
	select {
	case r := <-answered:
		if r.Action != elicit.Accept || r.Content["color"] != "green" {
			t.Errorf("the proxy got %+v", r)
		}
	case <-time.After(termDeadline):
		t.Fatalf("no answer reached the proxy; screen:\n%s", tm.screen())
	}
	out := tm.rawOutput()
	if !strings.Contains(out, "\x1b]9;elicitty: Claude Desktop › demo asks for input") {
		t.Errorf("no OSC 9 notification in the output")
	}
	if n := strings.Count(out, "\a") - strings.Count(out, "\x1b]9;"); n < 1 {
		t.Errorf("the bell did not ring (%d bells beyond the OSC 9 terminators)", n)
	}

	// The proxy stops waiting: the form goes, with the reason.
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, err := b.Answer(ctx, colourAsk())
		gone <- err
	}()
	tm.waitFocus("Colour *")
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Errorf("Answer = %v", err)
	}
	tm.waitFor("withdrawn: cancelled by the server", "Inbox: 0 pending")

	// An ask still open when the inbox quits stays pending for another inbox.
	pending, stop := context.WithCancel(context.Background())
	defer stop()
	left := make(chan error, 1)
	go func() {
		_, err := b.Answer(pending, colourAsk())
		left <- err
	}()
	tm.waitFocus("Colour *")
	tm.keys("C-b") // set aside
	tm.waitFor("Inbox: 1 pending")
	tm.keys("q") // no confirmation: nothing of the inbox's own is cancelled
	if code, _ := tm.wait(); code != 0 {
		t.Fatalf("elicitty inbox exited %d; screen:\n%s", code, tm.screen())
	}
	r := runBin(t, []string{"ELICITTY_RUNTIME_DIR=" + dir}, "inbox", "--list")
	want := fmt.Sprintf("%d  Claude Desktop  demo    1", os.Getpid())
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("inbox --list: exit %d, stdout:\n%s\nstderr:\n%s\nwant a line %q", r.code, r.stdout, r.stderr, want)
	}
	select {
	case err := <-left:
		t.Errorf("the ask ended when the inbox quit: %v", err)
	default:
	}
}
