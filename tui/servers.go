package tui

import (
	"errors"
	"fmt"
	"github.com/elicitty/elicitty/elicit/safe"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connState is the state of one server connection.
type connState int

const (
	stateConnecting connState = iota
	stateReady
	stateFailed
)

// serverRow is one configured server and its connection.
type serverRow struct {
	srv       config.Server
	state     connState
	gen       int // bumps on reconnect; stale connectedMsgs are dropped
	err       string
	protocol  string
	caps      []string
	sess      session
	signIn    bool   // the last attempt failed for want of an OAuth sign-in
	signInWhy string // why, when it is more than "no sign-in yet"
}

// serversPane lists the servers with their state, era and capabilities.
type serversPane struct {
	rows   []serverRow
	cursor int
	w, h   int
	st     *styles
}

func newServersPane(srvs []config.Server, st *styles) serversPane {
	p := serversPane{st: st}
	for _, s := range srvs {
		p.rows = append(p.rows, serverRow{srv: s})
	}
	return p
}

// SetSize sets the pane's outer size.
func (p *serversPane) SetSize(w, h int) { p.w, p.h = w, h }

func (p *serversPane) next() {
	if len(p.rows) > 0 {
		p.cursor = (p.cursor + 1) % len(p.rows)
	}
}

// connected records the end of a connection attempt; it reports whether msg was current.
func (p *serversPane) connected(msg connectedMsg) bool {
	if msg.idx < 0 || msg.idx >= len(p.rows) || p.rows[msg.idx].gen != msg.gen {
		return false
	}
	r := &p.rows[msg.idx]
	if msg.err != nil {
		r.state, r.err, r.sess = stateFailed, msg.err.Error(), nil
		r.signIn, r.signInWhy = needsSignIn(msg.err), ""
		if r.signIn && !errors.Is(msg.err, oauth.ErrNoWait) {
			r.signInWhy = strings.TrimPrefix(r.err, "server "+strconv.Quote(r.srv.Name)+": ")
		}
		return true
	}
	r.state, r.err, r.sess, r.signIn = stateReady, "", msg.sess, false
	r.protocol, r.caps = msg.protocol, msg.caps
	return true
}

// needsSignIn reports whether a connection failed for want of an OAuth sign-in.
func needsSignIn(err error) bool {
	var ae *oauth.Error
	return errors.Is(err, oauth.ErrNoWait) || errors.As(err, &ae)
}

// selected returns the row under the cursor, or nil.
func (p *serversPane) selected() *serverRow {
	if p.cursor < 0 || p.cursor >= len(p.rows) {
		return nil
	}
	return &p.rows[p.cursor]
}

// exited marks a server whose process or connection ended as failed.
func (p *serversPane) exited(name string, why safe.Text) {
	for i := range p.rows {
		if r := &p.rows[i]; r.srv.Name == name && r.state == stateReady {
			r.state, r.err = stateFailed, "exited: "+why.Line() // the session stays for reconnect to close
		}
	}
}

// reconnect marks the selected row connecting and returns it (nil when none).
func (p *serversPane) reconnect() (idx int, row *serverRow) {
	if len(p.rows) == 0 {
		return -1, nil
	}
	r := &p.rows[p.cursor]
	r.gen++
	r.state, r.err = stateConnecting, ""
	return p.cursor, r
}

// session returns the ready session of server name, or nil.
func (p *serversPane) session(name string) session {
	for _, r := range p.rows {
		if r.srv.Name == name && r.state == stateReady {
			return r.sess
		}
	}
	return nil
}

// capNames summarizes server capabilities.
func capNames(c *mcp.ServerCapabilities) []string {
	if c == nil {
		return nil
	}
	var out []string
	if c.Tools != nil {
		out = append(out, "tools")
	}
	if c.Prompts != nil {
		out = append(out, "prompts")
	}
	if c.Resources != nil {
		out = append(out, "resources")
	}
	//lint:ignore SA1019 shown for servers of the eras that still offer it
	if c.Logging != nil {
		out = append(out, "logging")
	}
	if c.Completions != nil {
		out = append(out, "completions")
	}
	return out
}

// View renders the pane, exactly p.h lines of at most p.w columns.
func (p serversPane) View() string {
	inner := max(p.w-2, 4)
	var lines []string
	lines = append(lines, p.st.Title.Render("Servers"))
	for i, r := range p.rows {
		mark, state := "○", "connecting…"
		switch r.state {
		case stateReady:
			mark, state = "●", "ready"
		case stateFailed:
			mark, state = "✗", "failed"
		}
		name := trunc(fmt.Sprintf("%s %s", mark, r.srv.Name), inner)
		if i == p.cursor {
			name = p.st.Selected.Render(name)
		}
		lines = append(lines, name)
		switch r.state {
		case stateReady:
			lines = append(lines, p.st.Ok.Render(trunc("  "+state+" "+oneLine(r.protocol), inner)))
			if len(r.caps) > 0 {
				for _, l := range wrapWords(strings.Join(r.caps, " "), inner-2) {
					lines = append(lines, p.st.Dim.Render("  "+l))
				}
			}
		case stateFailed:
			if r.signIn {
				lines = append(lines, p.st.Warn.Render(trunc("  sign-in needed", inner)))
				if i == p.cursor {
					lines = append(lines, p.st.Dim.Render(trunc("  l: sign in", inner)))
				}
				if r.signInWhy != "" {
					for i, l := range wrapWords(oneLine(r.signInWhy), inner-2) {
						if i == 3 {
							break
						}
						lines = append(lines, p.st.Dim.Render("  "+l))
					}
				}
				break
			}
			lines = append(lines, p.st.Err.Render("  "+state))
			reason := strings.TrimPrefix(r.err, "server "+strconv.Quote(r.srv.Name)+": ")
			for i, l := range wrapWords(oneLine(reason), inner-2) { // the server's words
				if i == 4 {
					break
				}
				lines = append(lines, p.st.Dim.Render("  "+l))
			}
		default:
			lines = append(lines, p.st.Dim.Render("  "+state))
		}
	}
	if len(p.rows) == 0 {
		lines = append(lines, p.st.Dim.Render("(none)"))
	}
	body := fitLines(lines, p.h)
	return p.st.Pane.Width(p.w).Height(p.h).MaxHeight(p.h).Render(body)
}

// oneLine sanitizes server text for a one-line slot: control sequences go, and line
// breaks and tabs become spaces.
func oneLine(s string) string {
	return safe.Line(s)
}

// trunc cuts s to w display columns, ending with … when it cut.
func trunc(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// wrapWords wraps s at word boundaries to width w, hard-cutting words longer than w.
func wrapWords(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// fitLines pads or cuts lines to exactly h lines.
func fitLines(lines []string, h int) string {
	if h <= 0 {
		return ""
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
