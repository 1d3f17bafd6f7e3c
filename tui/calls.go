package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// call is one tool call, prompt get or resource read, in flight or done.
type call struct {
	id     callID
	server string
	what   string // "tools/call deploy"
	done   bool
	isErr  bool
	// cancelled is set when the user cancelled the call (x): it did not fail.
	cancelled bool
	text      string
	rounds    int
}

// callsPane shows the calls and the result of the selected one in a viewport.
type callsPane struct {
	calls  []call
	sel    int // index into calls
	vp     viewport.Model
	w, h   int
	st     *styles
	nextID callID
	// linked reports whether a running call waits for a URL flow the user consented
	// to, and whether something opened its link (the Model's Inbox knows); nil means
	// none does.
	linked func(callID) (waits, opened bool)
}

func newCallsPane(st *styles) callsPane {
	return callsPane{st: st, vp: viewport.New(), sel: -1}
}

// SetSize sets the pane's outer size.
func (c *callsPane) SetSize(w, h int) {
	c.w, c.h = w, h
	c.vp.SetWidth(w)
	c.vp.SetHeight(max(h-1, 0))
	c.refresh()
}

// start records a new call and selects it.
func (c *callsPane) start(server, what string) callID {
	c.nextID++
	c.calls = append(c.calls, call{id: c.nextID, server: server, what: what})
	c.sel = len(c.calls) - 1
	c.refresh()
	return c.nextID
}

// dropDone forgets the finished calls of server described as what; the selection
// stays on the call it was on, or on the last one.
func (c *callsPane) dropDone(server, what string) {
	var selID callID
	if c.sel >= 0 && c.sel < len(c.calls) {
		selID = c.calls[c.sel].id
	}
	kept := c.calls[:0]
	for _, cl := range c.calls {
		if !(cl.done && cl.server == server && cl.what == what) {
			kept = append(kept, cl)
		}
	}
	clear(c.calls[len(kept):])
	c.calls = kept
	c.sel = len(c.calls) - 1
	for i, cl := range c.calls {
		if cl.id == selID {
			c.sel = i
		}
	}
	c.refresh()
}

// finish records a call's result, selects it and returns a status line for it.
func (c *callsPane) finish(msg callDoneMsg) string {
	status := ""
	for i := range c.calls {
		if cl := &c.calls[i]; cl.id == msg.id {
			cl.done, cl.isErr, cl.text, cl.rounds = true, msg.isErr, msg.text, msg.rounds
			cl.cancelled = msg.cancelled
			c.sel = i // show the result that just came in
			switch {
			case cl.cancelled:
				status = cl.server + ": " + cl.what + " cancelled"
			case cl.isErr:
				status = cl.server + ": " + cl.what + " failed"
			default:
				status = cl.server + ": " + cl.what + " done"
			}
		}
	}
	c.refresh()
	return status
}

// only returns the one call in flight on server described as what, or 0 when there is
// none or more than one.
func (c *callsPane) only(server, what string) callID {
	var id callID
	for _, cl := range c.calls {
		if cl.done || cl.server != server || what == "" || cl.what != what {
			continue
		}
		if id != 0 {
			return 0
		}
		id = cl.id
	}
	return id
}

func (c *callsPane) inFlight() int {
	n := 0
	for _, cl := range c.calls {
		if !cl.done {
			n++
		}
	}
	return n
}

// cycle selects the previous (d<0) or next call.
func (c *callsPane) cycle(d int) {
	if len(c.calls) == 0 {
		return
	}
	c.sel = (c.sel + d + len(c.calls)) % len(c.calls)
	c.refresh()
}

// selectedRunning returns the selected call when it is still running.
func (c *callsPane) selectedRunning() (call, bool) {
	if c.sel < 0 || c.sel >= len(c.calls) || c.calls[c.sel].done {
		return call{}, false
	}
	return c.calls[c.sel], true
}

// selectedText returns the selected call's result text.
func (c *callsPane) selectedText() string {
	if c.sel < 0 || c.sel >= len(c.calls) {
		return ""
	}
	return c.calls[c.sel].text
}

func (c *callsPane) refresh() {
	if c.sel < 0 || c.sel >= len(c.calls) {
		c.vp.SetContent("")
		return
	}
	cl := c.calls[c.sel]
	var body string
	switch {
	case !cl.done:
		body = "running… (x cancels)"
	case cl.cancelled:
		body = cl.text // "cancelled by you", then anything the server said
	case cl.isErr:
		body = c.st.Err.Render("error") + "\n" + cl.text
	default:
		body = cl.text
	}
	c.vp.SetContent(wrapText(body, c.w))
	c.vp.GotoTop()
}

// Update scrolls the viewport.
func (c *callsPane) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	c.vp, cmd = c.vp.Update(msg)
	return cmd
}

// View renders a header line and the viewport, exactly c.h lines.
func (c callsPane) View() string {
	if c.h <= 0 {
		return ""
	}
	head := "Result"
	if c.sel >= 0 && c.sel < len(c.calls) {
		cl := c.calls[c.sel]
		state := "done"
		switch {
		case !cl.done && c.waitsForLink(cl.id):
			state = "waiting for a link"
		case !cl.done:
			state = "running"
		case cl.cancelled:
			state = "cancelled"
		case cl.isErr:
			state = "error"
		}
		head = fmt.Sprintf("Result %d/%d  %s · %s · %s", c.sel+1, len(c.calls), cl.server, cl.what, state)
		if cl.rounds > 0 {
			head += fmt.Sprintf(" · %d round", cl.rounds)
			if cl.rounds > 1 {
				head += "s"
			}
		}
	}
	if n := c.inFlight(); n > 0 {
		head += fmt.Sprintf("  (%d in flight)", n)
	}
	body := strings.Split(c.vp.View(), "\n")
	if cl, ok := c.selectedRunning(); ok && c.waitsForLink(cl.id) {
		where := "at the link" // only copied: no browser was opened
		if _, opened := c.linked(cl.id); opened {
			where = "in your browser"
		}
		body = wrapWords("Waiting for the step "+where+": i (Inbox), then enter shows the link, retry and cancel; x cancels the call.", c.w)
	}
	return fitLines(append([]string{c.st.Title.Render(trunc(head, c.w))}, body...), c.h)
}

// waitsForLink reports whether the running call id waits for a URL flow.
func (c callsPane) waitsForLink(id callID) bool {
	if c.linked == nil {
		return false
	}
	waits, _ := c.linked(id)
	return waits
}

// wrapText wraps every line of s to w columns at word boundaries, keeping each line's
// indentation; only a word longer than a line is cut.
func wrapText(s string, w int) string {
	if w <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, wordWrap(l, w)...)
	}
	return strings.Join(out, "\n")
}
