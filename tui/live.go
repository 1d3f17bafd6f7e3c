package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/transport"
)

// refreshDelay debounces catalog refreshes: a burst of list_changed notifications
// from one server lists its catalog once.
const refreshDelay = 300 * time.Millisecond

// What the TUI uses of a session beyond the session interface, when it has it
// (*transport.Session does; test fakes may not).
type (
	subscriber interface {
		CanSubscribe() bool
		Subscribe(ctx context.Context, uri string) error
		Unsubscribe(ctx context.Context, uri string) error
	}
	logLeveler interface {
		CanLog() bool
		SetLogLevel(ctx context.Context, level string) error
	}
	rooter interface {
		RootsDeclared() bool
		Roots() []transport.Root
		SetRoots(roots []string) error
	}
)

// liveState is what the TUI keeps of a server's change notifications: the resource
// subscriptions and updates, the pending catalog refreshes, the log levels set, and
// the roots screen.
type liveState struct {
	subscribed map[string]bool   // resKey -> subscribed
	updated    map[string]bool   // resKey -> updated since last read
	refresh    map[string]int    // server -> generation of its pending refresh
	levels     map[string]string // server -> log level set from the TUI or config
	roots      *rootsScreen      // the roots screen when on the stack, or nil (restack keeps it)
}

func newLiveState() liveState {
	return liveState{subscribed: map[string]bool{}, updated: map[string]bool{}, refresh: map[string]int{}, levels: map[string]string{}}
}

// resKey names a resource of a server.
func resKey(server, uri string) string { return server + "\x00" + uri }

// refreshMsg lists server's catalog again, if gen is still its latest list_changed.
type refreshMsg struct {
	server string
	gen    int
}

// liveDoneMsg reports the end of a subscribe, log level or roots request.
type liveDoneMsg struct {
	status string
	undo   func(*liveState) // reverts the optimistic change on failure, or nil
}

// onLive handles refreshMsg and liveDoneMsg.
func (m *Model) onLive(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case refreshMsg:
		if m.live.refresh[msg.server] != msg.gen {
			return nil // a later notification rescheduled it
		}
		for _, r := range m.servers.rows {
			if r.srv.Name == msg.server && r.state == stateReady && r.sess != nil {
				m.status = msg.server + ": lists changed, refreshed"
				return listCatalog(m.ctx, r.sess, r.caps)
			}
		}
	case liveDoneMsg:
		if msg.undo != nil {
			msg.undo(&m.live)
			m.markResources()
		}
		m.status = msg.status
	}
	return nil
}

// onLiveEvent handles the session events about changes; it reports false for others.
func (m *Model) onLiveEvent(msg eventMsg) (tea.Cmd, bool) {
	switch msg.Kind {
	case transport.EventListChanged:
		m.live.refresh[msg.Server]++
		server, gen := msg.Server, m.live.refresh[msg.Server]
		return tea.Tick(refreshDelay, func(time.Time) tea.Msg { return refreshMsg{server: server, gen: gen} }), true
	case transport.EventResourceUpdated:
		return m.resourceUpdated(msg.Server, msg.ID), true
	case transport.EventLog:
		// The Log tab shows the message (notifications/message); the status line its text.
		m.status = msg.Server + " log: " + msg.Text.Line()
		return nil, true
	}
	return nil, false
}

// resourceUpdated marks an updated resource and reads it again when its result is the
// one shown.
func (m *Model) resourceUpdated(server, uri string) tea.Cmd {
	m.status = server + ": " + oneLine(uri) + " updated"
	what := callName(catResources, catItem{name: uri})
	shown := false
	if m.calls.sel >= 0 && m.calls.sel < len(m.calls.calls) {
		c := m.calls.calls[m.calls.sel]
		shown = c.server == server && c.what == what
	}
	for _, c := range m.calls.calls {
		if c.server == server && c.what == what && !c.done {
			shown = false // a read is on its way
		}
	}
	if !shown {
		m.live.updated[resKey(server, uri)] = true
		m.markResources()
		return nil
	}
	return m.readResource(server, uri)
}

// readResource reads a resource (again), clearing its updated mark. The new read
// replaces the resource's earlier results: a subscription updated every second keeps
// one entry in Result, not one per update.
func (m *Model) readResource(server, uri string) tea.Cmd {
	delete(m.live.updated, resKey(server, uri))
	m.markResources()
	m.calls.dropDone(server, callName(catResources, catItem{name: uri}))
	return m.startCall(catResources, catItem{server: server, name: uri}, nil)
}

// markResources gives the Resources list its marks: * updated, + subscribed.
func (m *Model) markResources() {
	marks := map[string]string{}
	for k := range m.live.subscribed {
		marks[k] = "+"
	}
	for k := range m.live.updated {
		marks[k] = "*"
	}
	m.cats[catResources].marks = marks
}

// toggleSubscribe is key u on the Resources tab: subscribe to the selected resource,
// or unsubscribe.
func (m *Model) toggleSubscribe() tea.Cmd {
	it, ok := m.cats[catResources].selected()
	if !ok {
		return nil
	}
	if strings.Contains(it.name, "{") {
		m.status = "a resource template cannot be subscribed to; read a resource of it"
		return nil
	}
	sub, ok := m.servers.session(it.server).(subscriber)
	if !ok || !sub.CanSubscribe() {
		m.status = it.server + " does not offer resource subscriptions"
		return nil
	}
	k := resKey(it.server, it.name)
	on := !m.live.subscribed[k]
	if on {
		m.live.subscribed[k] = true
	} else {
		delete(m.live.subscribed, k)
	}
	m.markResources()
	ctx, uri, server := m.ctx, it.name, it.server
	verb := map[bool]string{true: "subscribed to ", false: "unsubscribed from "}[on]
	m.status = verb + oneLine(uri) + "…"
	return func() tea.Msg {
		f := sub.Unsubscribe
		if on {
			f = sub.Subscribe
		}
		if err := f(ctx, uri); err != nil {
			return liveDoneMsg{status: server + ": " + err.Error(), undo: func(l *liveState) {
				if on {
					delete(l.subscribed, k)
				} else {
					l.subscribed[k] = true
				}
			}}
		}
		return liveDoneMsg{status: server + ": " + verb + oneLine(uri)}
	}
}

// cycleLogLevel is key v: the selected server's log level becomes the next one
// (debug → info → … → emergency → debug), sent with logging/setLevel.
func (m *Model) cycleLogLevel() tea.Cmd {
	r := m.servers.selected()
	if r == nil {
		return nil
	}
	ll, ok := r.sess.(logLeveler)
	if r.state != stateReady || !ok {
		m.status = r.srv.Name + " is not connected"
		return nil
	}
	if !ll.CanLog() {
		m.status = r.srv.Name + " does not declare logging"
		return nil
	}
	levels := config.LogLevels()
	cur := m.live.levels[r.srv.Name]
	if cur == "" {
		cur = r.srv.LogLevel
	}
	next := levels[0]
	if i := slices.Index(levels, cur); i >= 0 {
		next = levels[(i+1)%len(levels)]
	}
	m.live.levels[r.srv.Name] = next
	ctx, name := m.ctx, r.srv.Name
	m.status = name + ": log level " + next + "…"
	return func() tea.Msg {
		if err := ll.SetLogLevel(ctx, next); err != nil {
			return liveDoneMsg{status: name + ": " + err.Error()}
		}
		return liveDoneMsg{status: fmt.Sprintf("%s: log level %s (v: next level)", name, next)}
	}
}

// rootsScreen lists the roots declared to one server and lets the user add and
// remove them; each change is sent at once (notifications/roots/list_changed).
type rootsScreen struct {
	row      int // the servers pane row
	server   string
	declared bool
	roots    []transport.Root
	cursor   int
	adding   bool
	input    textinput.Model
	err      string
}

// openRoots is key o: the roots screen of the selected server.
func (m *Model) openRoots() {
	r := m.servers.selected()
	if r == nil {
		return
	}
	rs := &rootsScreen{row: m.servers.cursor, server: r.srv.Name, declared: !r.srv.NoRoots}
	if ro, ok := r.sess.(rooter); ok && r.state == stateReady {
		rs.declared, rs.roots = ro.RootsDeclared(), ro.Roots()
	} else if rs.declared {
		rs.roots, _ = transport.RootsOf(r.srv.Roots)
	}
	in := textinput.New()
	in.Prompt = "directory: "
	in.SetVirtualCursor(false)
	rs.input = in
	m.push(rs)
}

// key handles a key on the roots screen: it takes every key.
func (rs *rootsScreen) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	return m.rootsKey(rs, msg), true
}

func (rs *rootsScreen) name() string        { return "roots" }
func (rs *rootsScreen) visible(*Model) bool { return true }
func (rs *rootsScreen) wide() bool          { return false }
func (rs *rootsScreen) view(m *Model, w, h int) string {
	return rs.View(&m.st, w, h)
}

// rootsKey handles a key on the roots screen rs.
func (m *Model) rootsKey(rs *rootsScreen, msg tea.KeyPressMsg) tea.Cmd {
	if rs.adding {
		switch msg.String() {
		case "esc":
			rs.adding = false
			rs.input.Blur()
			return nil
		case "enter":
			rs.adding = false
			rs.input.Blur()
			v := strings.TrimSpace(rs.input.Value())
			if v == "" {
				return nil
			}
			return m.setRoots(append(rootURIs(rs.roots), v))
		}
		var cmd tea.Cmd
		rs.input, cmd = rs.input.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.Cancel, m.keys.Roots) || msg.String() == "q":
		m.drop(rs)
	case key.Matches(msg, m.keys.Up):
		rs.cursor = max(0, rs.cursor-1)
	case key.Matches(msg, m.keys.Down):
		rs.cursor = max(0, min(len(rs.roots)-1, rs.cursor+1))
	case msg.String() == "a": // add
		if !rs.declared {
			rs.err = "roots are not declared to this server (--no-roots or noRoots: true)"
			return nil
		}
		rs.adding = true
		rs.input.SetValue("")
		return rs.input.Focus()
	case slices.Contains([]string{"d", "x", "delete", "backspace"}, msg.String()): // delete
		if rs.cursor < len(rs.roots) {
			rest := slices.Delete(slices.Clone(rs.roots), rs.cursor, rs.cursor+1)
			return m.setRoots(rootURIs(rest))
		}
	}
	return nil
}

// setRoots replaces the open roots screen's roots: on the session (which notifies the
// server) and in the server's entry, so that a restart keeps them.
func (m *Model) setRoots(roots []string) tea.Cmd {
	rs := m.live.roots
	next, err := transport.RootsOf(roots)
	if err != nil {
		rs.err = err.Error()
		return nil
	}
	rs.err = ""
	rs.roots = next
	rs.cursor = max(0, min(rs.cursor, len(next)-1))
	r := &m.servers.rows[rs.row]
	r.srv.Roots = rootURIs(next)
	ro, ok := r.sess.(rooter)
	if r.state != stateReady || !ok {
		m.status = rs.server + ": roots saved for the next connection"
		return nil
	}
	uris, name := rootURIs(next), rs.server
	m.status = name + ": roots changed…"
	return func() tea.Msg {
		if err := ro.SetRoots(uris); err != nil {
			return liveDoneMsg{status: name + ": " + err.Error()}
		}
		return liveDoneMsg{status: fmt.Sprintf("%s: %d root(s); notifications/roots/list_changed sent", name, len(uris))}
	}
}

func rootURIs(rs []transport.Root) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.URI)
	}
	return out
}

// View renders the roots screen, exactly h lines.
func (rs *rootsScreen) View(st *styles, w, h int) string {
	lines := []string{st.Title.Render(trunc("Roots of "+oneLine(rs.server), w))}
	switch {
	case !rs.declared:
		lines = append(lines, st.Dim.Render(trunc("no roots are declared to this server (--no-roots or noRoots: true)", w)))
	case len(rs.roots) == 0:
		lines = append(lines, st.Dim.Render("(no roots)"))
	}
	for i, r := range rs.roots {
		line := trunc(fmt.Sprintf("%-12s %s", trunc(oneLine(r.Name), 12), oneLine(r.URI)), w)
		if i == rs.cursor && !rs.adding {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	lines = append(lines, "")
	if rs.adding {
		lines = append(lines, trunc(rs.input.View(), w), st.Dim.Render(trunc("enter add · esc cancel · a directory or file:// URI", w)))
	} else {
		lines = append(lines, st.Dim.Render(trunc("a add · d remove · esc close", w)))
		for _, l := range wrapWords("Each change sends notifications/roots/list_changed.", w) {
			lines = append(lines, st.Dim.Render(l))
		}
	}
	if rs.err != "" {
		lines = append(lines, trunc(oneLine(rs.err), w))
	}
	return fitLines(lines, h)
}

// forget drops what a server's previous session held: its subscriptions and marks.
func (l *liveState) forget(server string) {
	for _, m := range []map[string]bool{l.subscribed, l.updated} {
		for k := range m {
			if strings.HasPrefix(k, server+"\x00") {
				delete(m, k)
			}
		}
	}
}
