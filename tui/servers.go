package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/transport/oauth"
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
	era       string // why this protocol was chosen
	caps      []string
	info      string // serverInfo, as the server sent it (sanitized when shown)
	sess      session
	signIn    bool       // the last attempt failed for want of an OAuth sign-in
	signInWhy string     // why, when it is more than "no sign-in yet"
	restarts  int        // connection attempts after the first (reconnects, restarts)
	auto      int        // automatic restarts so far (config restart: on-failure)
	listed    bool       // the catalog of the current session arrived
	resend    []callSpec // 2026-07-28 calls lost in a crash, to re-send once restarted
	lost      []string   // calls lost in a crash that are not re-sent, to report
}

// serversPane lists the servers with their state, era and capabilities.
type serversPane struct {
	rows   []serverRow
	cursor int
	w, h   int
	st     *styles
	// proxies are the elicitty proxies attached, listed when there are no servers
	// (`elicitty inbox`); nil when the program does not attach to any.
	proxies []Proxy
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

// connected records the end of a connection attempt; it reports whether msg was current.
func (p *serversPane) connected(msg connectedMsg) bool {
	if msg.idx < 0 || msg.idx >= len(p.rows) || p.rows[msg.idx].gen != msg.gen {
		return false
	}
	r := &p.rows[msg.idx]
	if msg.err != nil {
		r.state, r.err, r.sess = stateFailed, msg.err.Error()+handshakeHint(msg.err), nil
		r.signIn, r.signInWhy = needsSignIn(msg.err), ""
		if r.signIn && !errors.Is(msg.err, oauth.ErrNoWait) {
			r.signInWhy = strings.TrimPrefix(r.err, "server "+strconv.Quote(r.srv.Name)+": ")
		}
		return true
	}
	r.state, r.err, r.sess, r.signIn, r.listed = stateReady, "", msg.sess, false, false
	r.protocol, r.era, r.caps, r.info = msg.protocol, msg.era, msg.caps, msg.info
	return true
}

// implName is how a serverInfo reads: its title (or name) and version; "" for none.
func implName(impl *mcp.Implementation) string {
	if impl == nil {
		return ""
	}
	name := impl.Title
	if name == "" {
		name = impl.Name
	}
	return strings.TrimSpace(name + " " + impl.Version)
}

// label cuts a server's name to w cells so that two names stay told apart: a port is
// kept ("127.0.0.1:8080" and "127.0.0.1:8081" read "127…:8080" and "127…:8081"),
// and other long names lose their middle, not their end.
func label(name string, w int) string {
	name = oneLine(name)
	if ansi.StringWidth(name) <= w || w < 5 {
		return trunc(name, w)
	}
	tail := ""
	if i := strings.LastIndexByte(name, ':'); i > 0 && isDigits(name[i+1:]) && len(name)-i <= w-3 {
		tail = name[i:]
	} else {
		tail = ansi.Cut(name, ansi.StringWidth(name)-(w-1)/2, ansi.StringWidth(name))
	}
	head := ansi.Truncate(name, w-1-ansi.StringWidth(tail), "")
	return head + "…" + tail
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
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

// exited marks a server whose process or connection ended as failed and returns the
// rows it changed.
func (p *serversPane) exited(name string, why safe.Text) []int {
	var out []int
	for i := range p.rows {
		if r := &p.rows[i]; r.srv.Name == name && r.state == stateReady {
			r.state, r.err = stateFailed, "exited: "+why.Line() // the session stays for reconnect to close
			out = append(out, i)
		}
	}
	return out
}

// restart marks row idx connecting again and returns it.
func (p *serversPane) restart(idx int) *serverRow {
	r := &p.rows[idx]
	r.gen++
	r.restarts++
	r.state, r.err = stateConnecting, ""
	return r
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

// block renders row i: its name line, then (when full) its state, era, capabilities
// or failure reason; compact rows are one line.
func (p serversPane) block(i int, full bool) []string {
	inner := max(p.w-2, 4)
	r := p.rows[i]
	mark, state := "○", "starting…"
	switch {
	case r.state == stateReady:
		mark, state = "●", "ready"
	case r.state == stateFailed && r.signIn:
		mark, state = "✗", "sign-in needed"
	case r.state == stateFailed:
		mark, state = "✗", "failed"
	case r.restarts > 0:
		state = fmt.Sprintf("restarting (%d)…", r.restarts)
	}
	name := mark + " " + label(r.srv.Name, inner-2)
	if i == p.cursor {
		name = p.st.Selected.Render(name)
	}
	if !full {
		return []string{name}
	}
	lines := []string{name}
	switch r.state {
	case stateReady:
		lines = append(lines, p.st.Ok.Render(trunc("  "+state+" "+oneLine(r.protocol), inner)))
		if i == p.cursor && r.era != "" {
			for _, l := range wrapWords(oneLine(r.era), inner-2) {
				lines = append(lines, p.st.Dim.Render("  "+l))
			}
		}
		if len(r.caps) > 0 {
			for _, l := range wrapWords(strings.Join(r.caps, " "), inner-2) {
				lines = append(lines, p.st.Dim.Render("  "+l))
			}
		}
	case stateFailed:
		if r.signIn {
			lines = append(lines, p.st.Warn.Render(trunc("  "+state, inner)))
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
		for i, l := range wrapWords(oneLine(p.reason(r)), inner-2) {
			if i == 4 {
				break
			}
			lines = append(lines, p.st.Dim.Render("  "+l))
		}
		if i == p.cursor {
			lines = append(lines, p.st.Dim.Render(trunc("  e: full text · r: restart", inner)))
		}
	default:
		lines = append(lines, p.st.Dim.Render(trunc("  "+state, inner)))
	}
	return lines
}

// handshakeHint is what follows a connect error that is a handshake timeout: the flag
// that allows it longer, as the command line's message names it; "" for other errors.
func handshakeHint(err error) string {
	var hs *transport.HandshakeTimeoutError
	if errors.As(err, &hs) {
		return "; allow it longer with --handshake-timeout"
	}
	return ""
}

// noteListed records that server's catalog arrived.
func (p *serversPane) noteListed(server string) {
	for i := range p.rows {
		if r := &p.rows[i]; r.srv.Name == server && r.state == stateReady {
			r.listed = true
		}
	}
}

// emptyList says why a list of kind has no item: "" (the list's own "(nothing yet)")
// while a server still connects or lists; "(no server is ready)" when every server
// failed; else that no server offers any.
func (p serversPane) emptyList(kind catKind) string {
	ready := false
	for _, r := range p.rows {
		switch {
		case r.state == stateConnecting, r.state == stateReady && !r.listed:
			return ""
		case r.state == stateReady:
			ready = true
		}
	}
	if !ready {
		return "(no server is ready)"
	}
	return "(no " + [...]string{catTools: "tools", catPrompts: "prompts", catResources: "resources"}[kind] + ")"
}

// failedNote is what a server's "ready" on the status line goes on with while other
// servers failed, so that the last news does not hide a failure that came first:
// " · NAME failed: reason", or " · N servers failed" (the ✗ rows say which); "" when
// none failed.
func (p serversPane) failedNote() string {
	var failed []serverRow
	for _, r := range p.rows {
		if r.state == stateFailed {
			failed = append(failed, r)
		}
	}
	switch len(failed) {
	case 0:
		return ""
	case 1:
		return " · " + failed[0].srv.Name + " failed: " + p.reason(failed[0])
	}
	return fmt.Sprintf(" · %d servers failed (✗ in the servers pane)", len(failed))
}

// reason is a failed row's error without the "server NAME:" prefix.
func (p serversPane) reason(r serverRow) string {
	return strings.TrimPrefix(r.err, "server "+strconv.Quote(r.srv.Name)+": ")
}

// View renders the pane, exactly p.h lines of at most p.w columns. When every server
// does not fit in full, the other servers shrink to one line each, and the list
// scrolls so that the selected server is always shown, with "↑ n more" and "↓ n more"
// marks for what is cut.
func (p serversPane) View() string {
	inner := max(p.w-2, 4)
	title := p.st.Title.Render("Servers")
	var lines []string
	if len(p.rows) == 0 && p.proxies != nil {
		lines = []string{p.st.Title.Render("Proxies")}
		for _, px := range p.proxies {
			host := px.Host
			if host == "" {
				host = "(no host name yet)"
			}
			lines = append(lines, trunc(oneLine(safe.Block(host)), inner),
				trunc("› "+oneLine(safe.Block(px.Server)), inner),
				p.st.Dim.Render(trunc(fmt.Sprintf("  pid %d", px.PID), inner)))
		}
		if len(p.proxies) == 0 {
			lines = append(lines, p.st.Dim.Render("(none running)"))
		}
		return p.st.Pane.Width(p.w).Height(p.h).MaxHeight(p.h).Render(fitLines(lines, p.h))
	}
	if len(p.rows) == 0 {
		lines = []string{title, p.st.Dim.Render("(none)")}
		return p.st.Pane.Width(p.w).Height(p.h).MaxHeight(p.h).Render(fitLines(lines, p.h))
	}
	blocks := make([][]string, len(p.rows))
	total := 0
	for i := range p.rows {
		blocks[i] = p.block(i, true)
		total += len(blocks[i])
	}
	room := p.h - 1 // the title
	if total > room {
		total = 0
		for i := range p.rows {
			blocks[i] = p.block(i, i == p.cursor)
			total += len(blocks[i])
		}
	}
	first, last := 0, len(p.rows) // rows shown: [first, last)
	if total > room {
		// Scroll: the selected server and as many after it as fit, then before it.
		cur := min(max(p.cursor, 0), len(p.rows)-1)
		avail := room - 2 // the two marks
		used := len(blocks[cur])
		first, last = cur, cur+1
		for last < len(p.rows) && used+len(blocks[last]) <= avail && last-cur < avail/2 {
			used += len(blocks[last])
			last++
		}
		for first > 0 && used+len(blocks[first-1]) <= avail {
			first--
			used += len(blocks[first])
		}
		for last < len(p.rows) && used+len(blocks[last]) <= avail {
			used += len(blocks[last])
			last++
		}
	}
	lines = append(lines, title)
	if first > 0 {
		lines = append(lines, p.st.Dim.Render(trunc(fmt.Sprintf("↑ %d more", first), inner)))
	} else if total > room {
		lines = append(lines, "")
	}
	for i := first; i < last; i++ {
		lines = append(lines, blocks[i]...)
	}
	if n := len(p.rows) - last; n > 0 {
		lines = append(lines, p.st.Dim.Render(trunc(fmt.Sprintf("↓ %d more · s: next", n), inner)))
	}
	return p.st.Pane.Width(p.w).Height(p.h).MaxHeight(p.h).Render(fitLines(lines, p.h))
}

// detail is the selected server's full state, for the details screen (key e): how it
// is reached (command or URL), what it says it is (serverInfo), its state, and the
// last lines it wrote on stderr (stderr, oldest first; from the wire log).
func (p serversPane) detail(stderr []string) (title string, body string) {
	r := p.selected()
	if r == nil {
		return "", ""
	}
	title = "Server " + oneLine(r.srv.Name)
	var b strings.Builder
	if r.srv.EffectiveKind() == config.KindStdio {
		b.WriteString("command: " + oneLine(strings.Join(append([]string{r.srv.Command}, r.srv.Args...), " ")) + "\n")
	} else {
		b.WriteString("url: " + oneLine(r.srv.URL) + "\n")
	}
	if r.info != "" && r.state == stateReady {
		b.WriteString("server: " + oneLine(r.info) + "\n")
	}
	b.WriteString("\n")
	switch {
	case r.state == stateReady:
		fmt.Fprintf(&b, "ready, protocol %s\ncapabilities: %s\n", oneLine(r.protocol), strings.Join(r.caps, " "))
	case r.state == stateFailed:
		b.WriteString("failed:\n\n" + safe.Block(p.reason(*r)) + "\n")
	case r.restarts > 0:
		fmt.Fprintf(&b, "restarting (attempt %d)\n", r.restarts)
	default:
		b.WriteString("starting\n")
	}
	if r.restarts > 0 {
		fmt.Fprintf(&b, "\nreconnects and restarts so far: %d\n", r.restarts)
	}
	if len(stderr) > 0 {
		fmt.Fprintf(&b, "\nlast %d stderr line(s):\n", len(stderr))
		for _, l := range stderr {
			b.WriteString("  " + oneLine(l) + "\n")
		}
	}
	return title, b.String()
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
	return wordWrap(s, w)
}

// wordWrap wraps one line of text at spaces to lines of at most w cells, keeping its
// indentation; only a word longer than a whole line is cut.
func wordWrap(s string, w int) []string {
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	if ansi.StringWidth(indent) > w/2 {
		indent = ""
	}
	var out []string
	indentW := ansi.StringWidth(indent)
	cur, curW := indent, indentW
	fresh := true // cur holds no word yet
	for _, word := range strings.Fields(s) {
		ww := ansi.StringWidth(word)
		// A word that does not fit goes to the next line, unless it is longer than a
		// whole line and at least half a line is left: then it is cut where it falls.
		if !fresh && curW+1+ww > w && (ww <= w-indentW || w-curW-1 < w/2) {
			out = append(out, cur)
			cur, curW, fresh = indent, indentW, true
		}
		if !fresh {
			cur, curW = cur+" ", curW+1
		}
		for curW+ww > w && w-curW > 0 { // a word longer than a line
			room := w - curW
			if i := strings.LastIndexAny(ansi.Cut(word, 0, room), "/-:."); i > 0 && i+1 < room && ansi.StringWidth(word[:i+1]) == i+1 {
				room = i + 1 // after a slash, hyphen, colon or dot rather than mid-word
			}
			out = append(out, cur+ansi.Cut(word, 0, room))
			word = ansi.Cut(word, room, ww)
			ww -= room
			cur, curW = indent, indentW
		}
		cur, curW, fresh = cur+word, curW+ww, false
	}
	return append(out, cur)
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
