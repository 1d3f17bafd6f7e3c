package consent

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/cancelreader"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
)

// inlineWait is the inline prompt's wait for a consented URL flow: a line with the link
// and the time since consent, redrawn every second, and the keys r (retry now), o
// (reopen), y (copy) and c (cancel). It ends when the server completes the flow
// (Completed), the next request is asked, or the command's call ends (StopWaiting).
type inlineWait struct {
	req  *elicit.Request
	stop chan string // receives the closing line ("" for none); buffered, one send
	done chan struct{}
}

// waits reports whether a consented req leaves something to wait for that the inline
// prompt can show: a completion notification (an elicitationId) or the next round of a
// 2026-07-28 call.
func waits(req *elicit.Request) bool {
	return req.ElicitationID != "" || req.Origin == elicit.OriginInputRequest
}

// waitOpts is how an inline wait starts: whether the link may be opened here (not a
// copy-only policy), whether it was opened (false after "Copy link only" or when the
// browser failed: then nothing speaks of a browser step until o opens it), and when
// the user consented.
type waitOpts struct {
	canOpen, opened bool
	since           time.Time
}

// startWait begins the inline wait for req, whose URL the user consented to.
// The caller holds the turn and hands it over: the wait gives it back when it ends.
func (a *Answerer) startWait(req *elicit.Request, an urlsafe.Analysis, o waitOpts) {
	w := &inlineWait{req: req, stop: make(chan string, 1), done: make(chan struct{})}
	a.wmu.Lock()
	a.wait = w
	a.wmu.Unlock()
	go func() {
		defer func() { <-a.turn }()
		defer close(w.done)
		a.runWait(w, an, o)
	}()
}

// stopWait ends the wait in progress, if any, printing final (when not empty), and
// returns once the terminal is the caller's again; it reports whether a wait ended.
func (a *Answerer) stopWait(final string, match func(*elicit.Request) bool) bool {
	a.wmu.Lock()
	w := a.wait
	if w == nil || match != nil && !match(w.req) {
		a.wmu.Unlock()
		return false
	}
	a.wait = nil
	a.wmu.Unlock()
	w.stop <- final
	<-w.done
	return true
}

// Completed reports the server's notifications/elicitation/complete for id: the
// inline wait for it ends with a line saying so. It reports whether a wait ended (then
// the user was told).
func (a *Answerer) Completed(server, id string) bool {
	if id == "" {
		return false
	}
	return a.stopWait(fmt.Sprintf("%s reports the step at the link done.", safeText(server)), func(r *elicit.Request) bool {
		return r.Server == server && r.ElicitationID == id
	})
}

// StopWaiting ends the inline wait, if any: the command's call is over. It restores the
// terminal; call it before the command returns.
func (a *Answerer) StopWaiting() { _ = a.stopWait("", nil) }

// runWait draws the wait and reads its keys until stopped.
func (a *Answerer) runWait(w *inlineWait, an urlsafe.Analysis, o waitOpts) {
	req, canOpen, opened, since := w.req, o.canOpen, o.opened, o.since
	canRetry := req.Origin == elicit.OriginURLRequired && req.ElicitationID != "" && a.opts.OnRetry != nil
	hints := func() string {
		var hs []string
		if canRetry {
			hs = append(hs, "r retry now")
		}
		switch {
		case canOpen && opened:
			hs = append(hs, "o reopen")
		case canOpen:
			hs = append(hs, "o open")
		}
		hs = append(hs, "y copy")
		if a.opts.OnCancel != nil {
			hs = append(hs, "c cancel")
		}
		return strings.Join(hs, " · ")
	}
	// The link on a line of its own, unwrapped, so that the terminal's copy takes it whole.
	if opened {
		fmt.Fprintf(a.out, "Waiting for the step in your browser at\n%s\n", an.Display)
	} else {
		fmt.Fprintf(a.out, "Waiting for the step at the link\n%s\n", an.Display)
	}
	// Answered: a link that came back now waits like any input request.
	answered := *req
	answered.Repeat = 0
	fmt.Fprintln(a.out, ansi.Wrap(Completion(&answered), max(a.width()-1, 20), ""))
	keys, closeKeys := a.waitKeys()
	status := func() string {
		return fmt.Sprintf("waiting %s · %s", Elapsed(time.Since(since)), hints())
	}
	redraw := !a.opts.Accessible
	if redraw {
		a.drawMu.Lock()
		a.status = status
		fmt.Fprintf(a.out, "\r\x1b[2K%s", status())
		a.drawMu.Unlock()
	} else {
		fmt.Fprintf(a.out, "%s (type a letter and Enter)\n", strings.ReplaceAll(hints(), " · ", ", "))
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	say := func(s string) {
		a.drawMu.Lock()
		defer a.drawMu.Unlock()
		if redraw {
			fmt.Fprintf(a.out, "\r\x1b[2K%s\n%s", s, status())
		} else {
			fmt.Fprintln(a.out, s)
		}
	}
	final := ""
loop:
	for {
		select {
		case final = <-w.stop:
			break loop
		case <-tick.C:
			if redraw {
				a.drawMu.Lock()
				fmt.Fprintf(a.out, "\r\x1b[2K%s", status())
				a.drawMu.Unlock()
			}
		case k, ok := <-keys:
			if !ok {
				keys = nil // end of input: keep waiting without keys
				continue
			}
			switch k {
			case 'r', 'R':
				if canRetry {
					say("Retrying now.")
					a.opts.OnRetry(req)
				} else {
					say("Nothing to retry now: " + Completion(req))
				}
			case 'o', 'O':
				if !canOpen {
					say("The server's URL policy is copy-only: the link is not opened here.")
				} else if err := a.open(context.Background(), an.URL); err != nil {
					say("Could not open the browser: " + safeText(err.Error()))
				} else if opened {
					say("Reopened in your browser.")
				} else {
					a.drawMu.Lock()
					opened = true // the status line, drawn under drawMu, offers o reopen now
					a.drawMu.Unlock()
					say("Opened in your browser.")
				}
			case 'y', 'Y':
				if !a.opts.NoClipboard {
					fmt.Fprint(a.out, ansi.SetSystemClipboard(an.URL))
				}
				say("The link: " + an.Display + " (copied, if your terminal allows it)")
			case 'c', 'C', 'x', 'X':
				if a.opts.OnCancel != nil {
					say("Cancelling the call.")
					a.opts.OnCancel()
				}
			}
		}
	}
	closeKeys()
	a.drawMu.Lock()
	defer a.drawMu.Unlock()
	if redraw {
		a.status = nil
		fmt.Fprint(a.out, "\r\x1b[2K")
	}
	if final != "" {
		fmt.Fprintln(a.out, final)
	}
}

// Println prints line on the terminal the Answerer draws on (line ends with a newline
// of its own): above the waiting line of an inline wait in progress, which is drawn
// again below it, so the two never share a line.
func (a *Answerer) Println(line string) {
	a.drawMu.Lock()
	defer a.drawMu.Unlock()
	if a.status == nil {
		fmt.Fprintln(a.out, line)
		return
	}
	fmt.Fprintf(a.out, "\r\x1b[2K%s\n%s", line, a.status())
}

// escSeq skips the escape sequences in terminal input (arrow keys, and the terminal's
// late answers to the previous screen's queries, such as "\x1b[?1;2c"), whose letters
// are not keys. The zero value is at the start of input.
type escSeq struct {
	state byte // 0 outside; ESC after it; '[' in CSI; ']' in a string (OSC, DCS, APC, PM, SOS); '\\' after ESC in a string
}

// key consumes one input byte and reports whether it is a key typed on its own.
func (e *escSeq) key(b byte) bool {
	switch e.state {
	case 0:
		if b == 0x1b {
			e.state = 0x1b
			return false
		}
		return true
	case 0x1b:
		switch b {
		case '[':
			e.state = '['
		case ']', 'P', '_', '^', 'X':
			e.state = ']'
		case 0x1b:
		default:
			e.state = 0 // alt+key: not one of ours
		}
	case '[':
		if b >= 0x40 && b <= 0x7e {
			e.state = 0
		}
	case ']':
		switch b {
		case 0x07:
			e.state = 0
		case 0x1b:
			e.state = '\\'
		}
	case '\\':
		e.state = 0
		if b != '\\' {
			e.state = ']'
		}
	}
	return false
}

// width is the terminal's width for wrapping, 80 when unknown.
func (a *Answerer) width() int {
	if a.opts.Width > 0 {
		return a.opts.Width
	}
	if f, ok := a.out.(*os.File); ok {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// waitKeys returns the keys typed during a wait and a function that stops reading
// them and gives the terminal back. On a terminal, keys arrive without Enter (signals
// stay on: ctrl+c still interrupts); in accessible mode a line's first letter counts.
// Input that is not a terminal gives no keys.
func (a *Answerer) waitKeys() (<-chan byte, func()) {
	keys := make(chan byte)
	quit := make(chan struct{})
	f, isFile := a.in.(*os.File)
	if !isFile || !term.IsTerminal(f.Fd()) {
		// Scripted input: its lines belong to the prompts that follow.
		close(keys)
		return keys, func() {}
	}
	if a.opts.Accessible {
		// Line input, read by the one line reader that never reads ahead.
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(keys)
			for {
				line, ok, err := a.readLine(ctx)
				if err != nil || !ok {
					return
				}
				if s := strings.TrimSpace(line); s != "" {
					select {
					case keys <- s[0]:
					case <-quit:
						return
					}
				}
			}
		}()
		return keys, func() { close(quit); cancel(); <-done }
	}
	restore := cbreak(f.Fd())
	cr, err := cancelreader.NewReader(f)
	if err != nil {
		restore()
		close(keys)
		return keys, func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(keys)
		var b [1]byte
		var seq escSeq
		for {
			n, err := cr.Read(b[:])
			if err != nil {
				return
			}
			if n == 1 && seq.key(b[0]) {
				select {
				case keys <- b[0]:
				case <-quit:
					return
				}
			}
		}
	}()
	return keys, func() {
		close(quit)
		cr.Cancel()
		<-done
		_ = cr.Close()
		restore()
	}
}
