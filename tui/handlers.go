package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/tui/consent"
)

// onElicit files a new request and opens it when nothing else is being edited.
func (m *Model) onElicit(msg elicitRequestMsg) tea.Cmd {
	call := msg.call
	if call == 0 && msg.req.Host == "" {
		call = m.calls.only(msg.req.Server, msg.req.Call) // a pushed request during one call
	}
	p := &pending{id: msg.id, req: msg.req, form: msg.form, reply: msg.reply, arrived: m.now, call: call}
	waitOnly := !msg.req.Consented.IsZero() // a proxy's wait for a link consented to
	switch {
	case waitOnly:
		p.since, p.notOpened = msg.req.Consented, m.copied[copiedKey(msg.req)]
	case msg.req.Mode == elicit.ModeURL:
		p.since = m.sinceOf(call, msg.req.URL)
	}
	if call != 0 && msg.req.Origin == elicit.OriginInputRequest {
		// A new round of the call: the flows of its earlier rounds were retried.
		m.inbox.dropFlows(func(f flow) bool { return f.call == call && f.origin == elicit.OriginInputRequest })
	}
	m.inbox.add(p)
	if waitOnly {
		// The waiting screen follows the consent screen the user just answered: no
		// bell, nothing new to call them for.
		if m.active == nil && m.args == nil && !m.typing() {
			return m.open(p)
		}
		m.status = "still waiting: " + describe(msg.req)
		return nil
	}
	note := "elicitty: " + msg.req.Asker() + " asks for input"
	if m.typing() && m.opensByItself(p) {
		// The keys being typed are the filter's: the question opens when it ends.
		m.unseen++
		m.status = "new request, after the filter (enter/esc): " + describe(msg.req)
		return m.ring(note)
	}
	if m.active == nil && m.args == nil && m.opensByItself(p) {
		if msg.req.Host != "" {
			// A proxy's ask: its user may be looking at another window.
			return tea.Batch(m.open(p), m.ring(note))
		}
		return m.open(p)
	}
	m.unseen++
	m.status = "new request: " + describe(msg.req)
	if msg.req.Host != "" && !m.opts.InboxOnly {
		m.status = "new request from " + msg.req.Asker() + ": i, then enter opens it"
	}
	return m.ring(note)
}

// typing reports whether the user is typing into the filter of the tab shown: a
// question that would open by itself waits until the filter ends (filterScreen), so
// that no key meant for the filter lands in its form.
func (m *Model) typing() bool {
	n := len(m.screens)
	if n == 0 {
		return false
	}
	f, ok := m.screens[n-1].(*filterScreen)
	return ok && f.tab == m.tab && m.filter().editing
}

// opensByItself reports whether p may open without the user asking: a question of the
// program's own calls may; a proxy's (Request.Host set) never takes the keyboard in
// the full program, where the user is busy with something else: it waits in the Inbox
// with a badge and the bell. In `elicitty inbox` answering proxies is all there is to do.
func (m *Model) opensByItself(p *pending) bool {
	return !p.aside && (p.req.Host == "" || m.opts.InboxOnly)
}

// onGone drops a request whose asker stopped waiting.
func (m *Model) onGone(msg elicitGoneMsg) tea.Cmd {
	p := m.inbox.remove(msg.id)
	if p == nil {
		return nil // already answered
	}
	note := msg.why + ": " + describe(p.req)
	m.inbox.note(note, m.now)
	m.status = note
	if m.active == p {
		m.drop(p)
		return m.openNext()
	}
	return nil
}

// open makes p the request being answered, building its screen on first use.
func (m *Model) open(p *pending) tea.Cmd {
	p.aside = false
	m.push(p)
	so := m.screenSize()
	switch {
	case p.fs != nil || p.cs != nil:
		p.setSize(so.Width, so.Height)
		return nil
	case p.req.Mode == elicit.ModeURL && (p.req.Repeat > 0 || !p.req.Consented.IsZero()):
		// The same link came back in a later round, or a proxy waits for the flow
		// the user consented to: never reopen it unasked.
		p.cs = m.newWaiting(p.req, p.since, true, p.notOpened)
		return p.cs.Init()
	case p.req.Mode == elicit.ModeURL:
		p.cs = m.opts.NewConsent(p.req, so)
		return p.cs.Init()
	case p.req.Mode == elicit.ModeSampling:
		p.fs = newSamplingScreen(p.req, so)
		return p.fs.Init()
	default:
		p.fs = m.opts.NewForm(p.req, p.form, so)
		return p.fs.Init()
	}
}

// canOpen reports whether server's URL policy lets the browser open its links.
func (m *Model) canOpen(server string) bool {
	for _, s := range m.opts.Servers {
		if s.Name == server {
			return s.URLPolicy.Open != config.URLCopyOnly
		}
	}
	return true
}

// openNext opens the newest pending request not set aside, if nothing else is open.
func (m *Model) openNext() tea.Cmd {
	if m.active != nil || m.args != nil {
		return nil
	}
	for i := len(m.inbox.items) - 1; i >= 0; i-- {
		if p := m.inbox.items[i]; m.opensByItself(p) {
			m.unseen = 0
			return m.open(p)
		}
	}
	return nil
}

// toScreen forwards msg to the open screen and acts on its answer.
func (m *Model) toScreen(msg tea.Msg) tea.Cmd {
	switch {
	case m.active != nil && m.active.fs != nil:
		cmd := m.active.fs.Update(msg)
		if r, ok := m.active.fs.Done(); ok {
			return tea.Batch(cmd, m.answered(r, nil))
		}
		return cmd
	case m.active != nil && m.active.cs != nil:
		if m.active.opening {
			return nil // the browser is being opened for it
		}
		cmd := m.active.cs.Update(msg)
		if c, ok := m.active.cs.Done(); ok {
			return tea.Batch(cmd, m.consented(c))
		}
		return cmd
	case m.args != nil:
		cmd := m.args.screen.Update(msg)
		if r, ok := m.args.screen.Done(); ok {
			return tea.Batch(cmd, m.argsDone(r))
		}
		return cmd
	}
	return nil
}

// answered replies to the active request and moves on: to the next request, or,
// when it was opened from the Inbox tab and nothing else opens, to the tab where its
// call's result shows.
func (m *Model) answered(r elicit.Response, then tea.Cmd) tea.Cmd {
	p := m.active
	m.drop(p)
	m.inbox.remove(p.id)
	m.inbox.forgetNotes()
	p.answer(r)
	m.status = fmt.Sprintf("%s: %s", describe(p.req), r.Action)
	next := m.openNext()
	if m.active == nil && m.tab == tabInbox && len(m.inbox.items) == 0 && m.showCall(p.call) {
		m.status += " · the call's result is below"
	}
	return tea.Batch(then, next)
}

// showCall selects call id's result and shows the tab it belongs to; it reports false
// for a call the Result pane does not hold.
func (m *Model) showCall(id callID) bool {
	if id == 0 {
		return false
	}
	for i, c := range m.calls.calls {
		if c.id != id {
			continue
		}
		switch {
		case strings.HasPrefix(c.what, "prompts/"):
			m.tab = tabPrompts
		case strings.HasPrefix(c.what, "resources/"):
			m.tab = tabResources
		default:
			m.tab = tabTools
		}
		m.calls.sel = i
		m.calls.refresh()
		return true
	}
	return false
}

// consented turns a consent choice into an answer and its side effect.
func (m *Model) consented(c consent.Choice) tea.Cmd {
	p := m.active
	switch c {
	case consent.Open, consent.Reopen:
		// Open first, answer after: when no browser opens, the screen stays to say
		// why and offers the link itself (onOpened).
		p.opening = true
		m.status = "opening the link in your browser…"
		return m.openLink(p.id, p.req.URL)
	case consent.CopyOnly, consent.Opened, consent.Retry:
		// Copy only: the consent screen itself copies the URL (OSC 52). Retry: still
		// waiting, accept again without reopening, so the call retries now.
		return m.accept(p, c != consent.CopyOnly)
	case consent.Decline:
		return m.answered(elicit.Response{Action: elicit.Decline}, nil)
	case consent.Back:
		// A link that came back, on its waiting screen: esc keeps it pending.
		if w, ok := p.cs.(*consent.Waiting); ok {
			w.Reset("")
		}
		return m.setAside()
	}
	return m.answered(elicit.Response{Action: elicit.Cancel}, nil)
}

// track lists a consented URL flow until the server reports it complete
// (notifications/elicitation/complete, by elicitationId), its call retries or ends, or
// the user retries or cancels it; since is when the user consented, notOpened when
// nothing opened its link. It reports the flow, and false for a pushed request without
// an id and call, which has nothing to wait for.
func (m *Model) track(req *elicit.Request, call callID, since time.Time, notOpened bool) (flow, bool) {
	if (req.ElicitationID == "" && call == 0) || req.Host != "" {
		// A proxy's ask: the proxy's host waits for the flow, and its completion
		// goes to the proxy.
		return flow{}, false
	}
	f := flow{server: req.Server, id: req.ElicitationID, url: req.URL, call: call, origin: req.Origin, req: req, since: since,
		notOpened: notOpened}
	m.inbox.flows = append(m.inbox.flows, f)
	return f, true
}

// retryFlow is "Retry now" on the selected flow: the session's -32042 waits end at
// once and the calls retry (Session.RetryNow).
func (m *Model) retryFlow() tea.Cmd {
	f, ok := m.inbox.selectedFlow()
	if !ok {
		return nil
	}
	return m.retryFlowOf(f)
}

// retryFlowOf retries the call that waits for flow f, when it can be.
func (m *Model) retryFlowOf(f flow) tea.Cmd {
	if f.origin == elicit.OriginPush {
		m.status = f.server + ": nothing to retry; the server reports when the step is done (c cancels)"
		return nil
	}
	if f.origin == elicit.OriginInputRequest {
		// 2026-07-28: the call was retried as soon as the link was accepted; the
		// server holds it until the browser step is done.
		m.status = f.server + ": already retried; the server answers when the browser step is done (x cancels)"
		return nil
	}
	s := m.servers.session(f.server)
	if s == nil {
		m.status = f.server + " is not connected"
		return nil
	}
	m.inbox.dropFlows(func(g flow) bool { return g.server == f.server && g.origin == elicit.OriginURLRequired })
	m.status = f.server + ": retrying now"
	return func() tea.Msg { s.RetryNow(); return nil }
}

// cancelFlow is "Cancel" on the selected flow: its originating call is cancelled.
func (m *Model) cancelFlow() tea.Cmd {
	f, ok := m.inbox.selectedFlow()
	if !ok {
		return nil
	}
	m.cancelFlowOf(f)
	return nil
}

// cancelFlowOf cancels the call that waits for flow f and stops tracking it.
func (m *Model) cancelFlowOf(f flow) {
	if cancel := m.cancels[f.call]; cancel != nil {
		cancel()
		m.cancelled[f.call] = true
		m.status = f.server + ": call cancelled"
	} else {
		m.status = f.server + ": stopped tracking " + oneLine(f.url)
	}
	m.inbox.dropFlows(func(g flow) bool { return g == f || (f.call != 0 && g.call == f.call) })
}

// cancelCall cancels the selected running call: its context ends, so the server gets
// notifications/cancelled and the call reports "cancelled by you".
func (m *Model) cancelCall() {
	c, ok := m.calls.selectedRunning()
	if !ok {
		m.status = "no running call selected ([ and ] select one)"
		return
	}
	if cancel := m.cancels[c.id]; cancel != nil {
		cancel()
		m.cancelled[c.id] = true
		m.status = "cancelling " + c.what + " on " + c.server
	}
}

// openArgs opens the argument form of the selected catalog item.
func (m *Model) openArgs() tea.Cmd {
	if m.tab > tabResources {
		return nil
	}
	kind := catKind(m.tab)
	it, ok := m.cats[kind].selected()
	if !ok {
		return nil
	}
	if kind == catResources && it.template {
		return m.openCompleteForm(kind, it)
	}
	if kind == catResources {
		return m.readResource(it.server, it.name)
	}
	if kind == catPrompts && len(it.vars) > 0 && m.completer(kind, it) != nil {
		return m.openCompleteForm(kind, it) // arguments typed with the server's suggestions
	}
	what := map[catKind]string{catTools: "tool", catPrompts: "prompt"}[kind]
	req := &elicit.Request{Server: it.server, Call: callName(kind, it), Tool: it.name,
		Message: firstLine(it.desc), Schema: it.schema}
	popts := argParseOptions(m.servers.session(it.server), kind, it.name)
	req.FileInputs = popts != nil
	f := elicit.ParseWith(it.schema, "", popts)
	// A tool's inputSchema is not an elicitation schema: its lint findings would be noise.
	f.Findings = nil
	if len(f.Fields) == 0 && !f.Unvalidatable {
		// Nothing to ask: call at once, unless the tool may change things.
		if kind == catTools && !it.readOnly {
			m.ask("run "+oneLine(it.name)+" now? not marked read-only", "",
				func() tea.Cmd { return m.startCall(kind, it, map[string]any{}) })
			return nil
		}
		return m.startCall(kind, it, map[string]any{})
	}
	so := m.screenSize()
	so.Call, so.Values = what+" "+it.name, m.lastArgs[argsKey(kind, it)]
	var s FormScreen
	if needsJSON(f) {
		s = newJSONEditor(req, f, so)
	} else {
		s = m.opts.NewForm(req, f, so)
	}
	m.push(&argForm{kind: kind, item: it, screen: s})
	return s.Init()
}

// needsJSON reports whether a schema is not flat enough for a form.
func needsJSON(f *elicit.Form) bool {
	if f.Unvalidatable {
		return true
	}
	for _, fld := range f.Fields {
		if fld.Kind == elicit.KindRaw {
			return true
		}
	}
	return false
}

// argsKey names a tool or prompt for lastArgs.
func argsKey(k catKind, it catItem) string {
	return fmt.Sprintf("%d\x00%s\x00%s", k, it.server, it.name)
}

func callName(k catKind, it catItem) string {
	switch k {
	case catTools:
		return "tools/call " + it.name
	case catPrompts:
		return "prompts/get " + it.name
	}
	return "resources/read " + it.name
}

func (m *Model) argsDone(r elicit.Response) tea.Cmd {
	a := m.args
	m.drop(a)
	if r.Action != elicit.Accept {
		m.status = "call not made"
		return m.openNext()
	}
	m.lastArgs[argsKey(a.kind, a.item)] = r.Content
	if a.item.template {
		return tea.Batch(m.readTemplate(a.item, r.Content), m.openNext())
	}
	return tea.Batch(m.startCall(a.kind, a.item, r.Content), m.openNext())
}

func (m *Model) startCall(kind catKind, it catItem, content map[string]any) tea.Cmd {
	s := m.servers.session(it.server)
	if s == nil {
		m.status = it.server + " is not connected"
		return nil
	}
	id := m.calls.start(it.server, callName(kind, it))
	m.status = "calling " + callName(kind, it)
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancels[id] = cancel
	m.specs[id] = callSpec{kind: kind, item: it, content: content}
	call, inflight := runCall(ctx, s, id, kind, it, content), m.inflight
	inflight.Add(1)
	return func() tea.Msg {
		defer inflight.Done()
		return call()
	}
}

func (m *Model) onCallDone(msg callDoneMsg) tea.Cmd {
	if cancel := m.cancels[msg.id]; cancel != nil {
		cancel()
		delete(m.cancels, msg.id)
	}
	spec, hasSpec := m.specs[msg.id]
	delete(m.specs, msg.id)
	if m.cancelled[msg.id] {
		delete(m.cancelled, msg.id)
		if msg.ended {
			msg.text = "" // "context canceled" says nothing more
		}
		msg.text = strings.TrimSuffix("cancelled by you\n"+msg.text, "\n")
		msg.cancelled = true
	} else if msg.lost && hasSpec {
		if note := m.lostCall(spec); note != "" {
			msg.text = note + "\n" + msg.text
		}
	}
	m.inbox.dropFlows(func(f flow) bool { return f.call == msg.id })
	m.status = m.calls.finish(msg)
	return nil
}

func (m *Model) onConnected(msg connectedMsg) tea.Cmd {
	if !m.servers.connected(msg) {
		if msg.sess != nil {
			s := msg.sess
			return func() tea.Msg { _ = s.Close(); return nil }
		}
		return nil
	}
	name := m.servers.rows[msg.idx].srv.Name
	if msg.err != nil {
		// The server named once: the error's own "server NAME:" is dropped.
		m.status = name + ": " + m.servers.reason(m.servers.rows[msg.idx])
		return m.autoRestart(msg.idx)
	}
	m.status = name + " ready" + m.servers.failedNote()
	m.live.forget(name) // subscriptions end with the session
	m.markResources()
	list := msg.catalog
	if list == nil {
		list = listCatalog(m.ctx, msg.sess, msg.caps)
	}
	return tea.Batch(list, m.afterRestart(msg.idx))
}

func (m *Model) onCatalog(msg catalogMsg) tea.Cmd {
	t, p, r := catalogItems(msg)
	m.cats[catTools].replace(msg.server, t)
	m.cats[catPrompts].replace(msg.server, p)
	m.cats[catResources].replace(msg.server, r)
	m.servers.noteListed(msg.server)
	if msg.err != nil {
		m.status = msg.err.Error()
	}
	return nil
}

func (m *Model) onEvent(msg eventMsg) tea.Cmd {
	switch msg.Kind {
	case transport.EventElicitationComplete:
		m.inbox.dropFlows(func(f flow) bool { return f.server == msg.Server && f.id == msg.ID })
		m.status = msg.Server + ": URL flow completed"
	case transport.EventTask:
		return m.onTaskEvent(msg)
	case transport.EventExit:
		m.status = msg.Server + " exited: " + msg.Text.Line()
		var cmds []tea.Cmd
		for _, idx := range m.servers.exited(msg.Server, msg.Text) {
			cmds = append(cmds, m.autoRestart(idx))
		}
		return tea.Batch(cmds...)
	default:
		if cmd, ok := m.onLiveEvent(msg); ok {
			return cmd
		}
		m.status = msg.Server + ": " + msg.Text.Line()
	}
	return nil
}

// onKey handles a key press. Two one-key prompts come first: the confirm prompt takes
// the next key whatever opened meanwhile, and the full status closes on any key.
// Then the stack of screens gets it, top first (onStackKey), and the tabs last.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	// m.quitting is set by a key that closed a screen (screenKey) or set it aside: the
	// key after it, when it is q or ctrl+c, is never typed into the next screen.
	quitting := m.quitting
	m.quitting = false
	if c := m.confirm; c != nil {
		m.confirm = nil
		if key.Matches(msg, m.keys.Yes) || msg.String() == c.again {
			return c.yes()
		}
		m.status = "kept"
		return nil
	}
	if m.onStatusKey(msg) {
		return nil
	}
	if quitting && (m.active != nil || m.args != nil) && key.Matches(msg, m.keys.Quit) {
		// The screen opened after the user closed one (or set it aside): q or
		// ctrl+c is meant for the program, not typed into this screen.
		if msg.String() == "ctrl+c" {
			return m.quitNow() // ctrl+c twice: cancel all and quit
		}
		return m.quit(msg.String())
	}
	return m.onStackKey(msg)
}

// formKey handles a key on an open request or argument form: it gets every key but
// ctrl+b, which sets it aside; a key that would throw away what was typed asks first.
func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Aside) {
		m.quitting = true
		return m.setAside()
	}
	if s := m.openForm(); s != nil && m.discards(s, msg) && isDirty(s) {
		what := "cancel"
		switch {
		case m.args != nil:
			what = "close the form"
		case key.Matches(msg, m.keys.Decline):
			what = "decline"
		}
		m.ask(what+", losing what you typed?", msg.String(), func() tea.Cmd { return m.screenKey(msg) })
		return nil
	}
	return m.screenKey(msg)
}

// baseKey handles a key no screen took: the tabs' keys.
func (m *Model) baseKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Tasks):
		return m.openTasks()
	case key.Matches(msg, m.keys.Details):
		m.push(&detailsScreen{})
	case key.Matches(msg, m.keys.Describe) && m.tab <= tabResources:
		if _, ok := m.cats[m.tab].selected(); ok {
			m.push(&describeScreen{tab: m.tab})
		}
	case key.Matches(msg, m.keys.Quit):
		return m.quit(msg.String())
	case key.Matches(msg, m.keys.Next):
		m.tab = (m.tab + 1) % numTabs
	case key.Matches(msg, m.keys.Prev):
		m.tab = (m.tab + numTabs - 1) % numTabs
	case key.Matches(msg, m.keys.Inbox):
		m.tab, m.unseen = tabInbox, 0
	case key.Matches(msg, m.keys.Help):
		m.toggleHelp()
	case key.Matches(msg, m.keys.Servers):
		m.nextServer()
	case key.Matches(msg, m.keys.Reconnect):
		return m.reconnect()
	case key.Matches(msg, m.keys.SignIn):
		return m.signIn()
	case key.Matches(msg, m.keys.Up):
		m.move(-1)
	case key.Matches(msg, m.keys.Down):
		m.move(1)
	case key.Matches(msg, m.keys.PageUp), key.Matches(msg, m.keys.PageDown):
		d := 1
		if key.Matches(msg, m.keys.PageUp) {
			d = -1
		}
		if m.tab == tabLog && m.log.scrollDetail(d) {
			return nil // an expanded log entry scrolls
		}
		return m.calls.Update(msg)
	case key.Matches(msg, m.keys.PrevCall):
		m.calls.cycle(-1)
	case key.Matches(msg, m.keys.NextCall):
		m.calls.cycle(1)
	case key.Matches(msg, m.keys.Enter):
		return m.enter()
	case key.Matches(msg, m.keys.Copy):
		return m.copy()
	case key.Matches(msg, m.keys.RetryNow) && m.tab == tabInbox:
		return m.retryFlow()
	case key.Matches(msg, m.keys.CancelCall) && m.tab == tabInbox:
		return m.cancelFlow()
	case key.Matches(msg, m.keys.CancelCall) && m.tab <= tabResources:
		m.cancelCall()
	case key.Matches(msg, m.keys.Subscribe) && m.tab == tabResources:
		return m.toggleSubscribe()
	case key.Matches(msg, m.keys.LogLevel):
		return m.cycleLogLevel()
	case key.Matches(msg, m.keys.Roots):
		m.openRoots()
	case key.Matches(msg, m.keys.Filter):
		m.filter().edit()
		m.push(&filterScreen{tab: m.tab})
	case key.Matches(msg, m.keys.Follow) && m.tab == tabLog:
		m.log.follow = !m.log.follow
		m.log.refilter()
	}
	return nil
}

// screenKey gives msg to the open screen; when the key closed it, the next key may be
// for the program (quitting), whatever opens meanwhile.
func (m *Model) screenKey(msg tea.KeyPressMsg) tea.Cmd {
	active, args := m.active, m.args
	cmd := m.toScreen(msg)
	if m.active != active || m.args != args {
		m.quitting = true
	}
	return cmd
}

// quit is the quit key (q or ctrl+c, pressed as again): it asks first when quitting
// would throw away work in flight (requests pending, calls running, URL flows awaited),
// and quits at once otherwise. A proxy's ask stays pending in its proxy for another
// inbox: it does not count.
func (m *Model) quit(again string) tea.Cmd {
	var parts []string
	if n := m.inbox.local(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d pending request(s)", n))
	}
	if n := m.calls.inFlight(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d call(s) in flight", n))
	}
	if n := len(m.inbox.flows); n > 0 {
		parts = append(parts, fmt.Sprintf("%d URL flow(s)", n))
	}
	if len(parts) == 0 {
		return tea.Quit
	}
	m.ask("quit and cancel "+strings.Join(parts, ", ")+"?", again, m.quitNow)
	return nil
}

// quitNow cancels everything and quits (closeAll answers and cancels, after the program).
func (m *Model) quitNow() tea.Cmd {
	m.status = "cancelling everything and quitting"
	return tea.Quit
}

// filter returns the filter of the current tab.
func (m *Model) filter() *filterBox {
	switch m.tab {
	case tabLog:
		return &m.log.f
	case tabInbox:
		return &m.inbox.f
	}
	return &m.cats[m.tab].f
}

// filterKey applies a key typed into the current tab's filter.
// confirmPrompt is a question asked before a key throws work away: y (or the same key
// again) does it, any other key keeps the work.
type confirmPrompt struct {
	question string
	again    string // the key that asked; pressed again, it confirms
	yes      func() tea.Cmd
}

// ask puts a question to the user before doing yes.
func (m *Model) ask(question, again string, yes func() tea.Cmd) {
	m.confirm = &confirmPrompt{question: question, again: again, yes: yes}
}

// openForm returns the form being filled (a request's or a call's arguments), or nil.
func (m *Model) openForm() FormScreen {
	switch {
	case m.active != nil && m.active.fs != nil:
		return m.active.fs
	case m.args != nil:
		return m.args.screen
	}
	return nil
}

// discards reports whether k closes a form without sending what was typed: esc and
// ctrl+c cancel, ctrl+x declines.
func (m *Model) discards(s FormScreen, k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, m.keys.Cancel):
		f, ok := s.(interface{ Filtering() bool })
		return !ok || !f.Filtering() // esc ends a select field's filtering first
	case key.Matches(k, m.keys.Interrupt):
		return true
	case key.Matches(k, m.keys.Decline):
		return m.args == nil // an argument form has nothing to decline
	}
	return false
}

// isDirty reports whether s holds input the user would lose; screens that cannot tell
// are taken as clean.
func isDirty(s FormScreen) bool {
	d, ok := s.(interface{ Dirty() bool })
	return ok && d.Dirty()
}

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch m.tab {
	case tabLog:
		return m.log.editKey(msg)
	case tabInbox:
		return m.inbox.editKey(msg)
	}
	return m.cats[m.tab].editKey(msg)
}

// nextServer is key s: it selects the next server and narrows every list to it; after
// the last server the lists show every server again.
func (m *Model) nextServer() {
	rows := m.servers.rows
	if len(rows) == 0 {
		return
	}
	only := ""
	switch {
	case m.log.only == "":
		m.servers.cursor = 0
		only = rows[0].srv.Name
	case m.servers.cursor+1 < len(rows):
		m.servers.cursor++
		only = rows[m.servers.cursor].srv.Name
	default:
		m.servers.cursor = 0
	}
	m.narrow(only)
	if only == "" {
		m.status = "showing every server (s: only the next one)"
	} else {
		m.status = "showing only " + only + " (s: next server)"
	}
}

// narrow shows only server's items in every list; "" shows all.
func (m *Model) narrow(server string) {
	for i := range m.cats {
		m.cats[i].only = server
		m.cats[i].refilter()
	}
	m.log.only = server
	m.log.refilter()
	m.inbox.only = server
	m.inbox.clamp()
}

// setAside parks the open request (its draft is kept) or closes the argument form.
func (m *Model) setAside() tea.Cmd {
	if m.active != nil {
		m.status = "set aside: " + describe(m.active.req)
		m.active.aside = true
		m.drop(m.active)
		m.tab = tabInbox
		return nil
	}
	m.drop(m.args)
	m.status = "call not made"
	return nil
}

func (m *Model) move(d int) {
	switch m.tab {
	case tabLog:
		m.log.move(d)
	case tabInbox:
		m.inbox.move(d)
	default:
		m.cats[m.tab].move(d)
	}
}

func (m *Model) enter() tea.Cmd {
	switch m.tab {
	case tabLog:
		m.log.toggleOpen()
	case tabInbox:
		if p := m.inbox.selected(); p != nil {
			m.unseen = 0
			return m.open(p)
		}
		if f, ok := m.inbox.selectedFlow(); ok {
			m.watchFlow(f)
		}
	default:
		return m.openArgs()
	}
	return nil
}

func (m *Model) copy() tea.Cmd {
	var s string
	if m.tab == tabLog {
		if e, ok := m.log.selected(); ok {
			s = string(e.Raw)
			if s == "" {
				s = e.Text
			}
		}
	} else {
		s = m.calls.selectedText()
	}
	if s == "" {
		return nil
	}
	m.status = fmt.Sprintf("copied %d bytes", len(s))
	return tea.SetClipboard(s)
}

// signIn starts the OAuth sign-in of the selected server: its sign-ins may now show
// the sign-in page (Bridge.SignIn), and it reconnects.
func (m *Model) signIn() tea.Cmd {
	r := m.servers.selected()
	if r == nil {
		return nil
	}
	if r.srv.EffectiveKind() == config.KindStdio {
		m.status = r.srv.Name + " is a stdio server; sign-in applies to http servers"
		return nil
	}
	m.bridge.allowSignIn(r.srv.Name)
	cmd := m.reconnect()
	m.status = "signing in to " + r.srv.Name + ": the sign-in page will be shown first"
	return cmd
}

// reconnect restarts the selected server (a stdio server's process is started anew)
// and resets its count of automatic restarts.
func (m *Model) reconnect() tea.Cmd {
	r := m.servers.selected()
	if r == nil {
		return nil
	}
	r.auto = 0
	return m.restartRow(m.servers.cursor, "reconnecting "+r.srv.Name)
}
