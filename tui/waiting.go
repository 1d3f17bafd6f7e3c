package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/urlsafe"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport"
	"github.com/elicitty/elicitty/tui/consent"
)

// A consented URL flow is shown where the user is, on tui/consent's one Waiting screen,
// whatever carried it (docs/protocol.md, "URL mode"):
//
//   - a 2026-07-28 input request whose link came back in a later round
//     (elicit.Request.Repeat > 0) is a pending request: the screen answers it (r
//     accepts again, o reopens and accepts, c cancels), and the link is never reopened
//     unasked;
//   - every other flow the user consented to (pushed elicitation/create with an
//     elicitationId, -32042, an input request) is watched (the waiting screen) until the
//     server completes it, its call retries or ends, or the user cancels it: r is
//     Session.RetryNow for a -32042 wait, o reopens, c cancels the call (it asks
//     first), esc or ctrl+b goes back to the lists (the flow stays in the Inbox, where
//     enter shows it again).

// waitsFor reports whether call waits for a URL flow the user consented to, and
// whether the link of one such flow was opened (not only copied).
func (in *inbox) waitsFor(call callID) (waits, opened bool) {
	for _, f := range in.flows {
		if f.call == call {
			waits = true
			opened = opened || !f.notOpened
		}
	}
	return waits, opened
}

// watching is the flow shown on the waiting screen.
type watching struct {
	f flow
	s *consent.Waiting
}

// errNoOpener is why a link cannot be opened when the TUI has no Opener.
var errNoOpener = errors.New("no browser is configured")

// analyze checks req's URL under its server's URL policy, as the consent screen does.
func (m *Model) analyze(req *elicit.Request) urlsafe.Analysis {
	var pol config.URLPolicy
	for _, s := range m.opts.Servers {
		if s.Name == req.Server {
			pol = s.URLPolicy
		}
	}
	return urlsafe.Analyze(req.URL, transport.URLPolicy(pol))
}

// newWaiting returns the waiting screen for req, waiting since since; notOpened when
// nothing opened its link.
func (m *Model) newWaiting(req *elicit.Request, since time.Time, canRetry, notOpened bool) *consent.Waiting {
	so := m.screenSize()
	return consent.NewWaiting(consent.WaitingOptions{Req: req, Analysis: m.analyze(req), Since: since,
		Now: func() time.Time { return m.now }, CanOpen: m.canOpen(req.Server), CanRetry: canRetry,
		NotOpened: notOpened, Width: so.Width, Height: so.Height, NoColor: m.opts.NoColor})
}

// openedFlow records that the watched flow w's link is now open in the browser.
func (m *Model) openedFlow(w *watching) {
	for i, f := range m.inbox.flows {
		if f == w.f {
			m.inbox.flows[i].notOpened = false
		}
	}
	w.f.notOpened = false
	w.s.Opened()
}

// watchFlow shows f on the waiting screen.
func (m *Model) watchFlow(f flow) {
	// Only a -32042 wait with an elicitationId can be cut short (Session.RetryNow).
	canRetry := f.origin == elicit.OriginURLRequired && f.id != ""
	// Answered: a link that came back now waits like any other.
	req := *f.req
	req.Repeat = 0
	// Under a request or form open meanwhile: that one keeps the keyboard.
	m.pushUnderForm(&watching{f: f, s: m.newWaiting(&req, f.since, canRetry, f.notOpened)})
}

// watched returns the watched flow's screen while the flow is still awaited; the
// screen of a flow that ended (completed, retried, ended or cancelled) closes.
func (m *Model) watched() *watching {
	w, ok := findScreen[*watching](m)
	if !ok {
		return nil
	}
	for _, f := range m.inbox.flows {
		if f == w.f {
			return w
		}
	}
	m.drop(w)
	return nil
}

func (w *watching) name() string        { return "waiting" }
func (w *watching) visible(*Model) bool { return true }
func (w *watching) wide() bool          { return false }

// key gives k to the waiting screen; handled is false for a key the screen does
// not use, which then closes the screen and acts as on the lists.
func (w *watching) key(m *Model, k tea.KeyPressMsg) (tea.Cmd, bool) {
	if key.Matches(k, m.keys.Aside) {
		m.leaveWatch(w)
		return nil, true
	}
	if !w.s.Handles(k.String()) {
		m.drop(w)
		return nil, false
	}
	cmd := w.s.Update(k)
	c, ok := w.s.Done()
	if !ok {
		return cmd, true
	}
	switch c {
	case consent.Retry:
		w.s.Reset("")
		return tea.Batch(cmd, m.retryFlowOf(w.f)), true
	case consent.Reopen:
		return tea.Batch(cmd, m.openLink(0, w.f.url)), true
	case consent.Back:
		m.leaveWatch(w)
		return cmd, true
	}
	m.drop(w)
	m.cancelFlowOf(w.f)
	return cmd, true
}

// leaveWatch goes back from the waiting screen to the lists; the flow keeps waiting.
func (m *Model) leaveWatch(w *watching) {
	m.drop(w)
	m.status = "still waiting for " + oneLine(w.f.server) + "'s link: Inbox, enter shows it again"
}

// view renders the waiting screen in w×h cells.
func (ws *watching) view(m *Model, w, h int) string {
	ws.s.SetSize(w, h-1)
	head := "Waiting: " + describe(ws.f.req)
	if ws.f.call != 0 {
		head += fmt.Sprintf(" · call #%d", ws.f.call)
	}
	return fitLines(append([]string{m.st.Title.Render(trunc(oneLine(head), w))}, strings.Split(ws.s.View(), "\n")...), h)
}

// openLink opens url in the browser off the UI goroutine; the outcome comes back as an
// openedMsg for request id (0: the watched flow's reopen).
func (m *Model) openLink(id reqID, url string) tea.Cmd {
	op, ctx := m.opts.Opener, m.ctx
	if op == nil {
		return func() tea.Msg { return openedMsg{id: id, url: url, err: errNoOpener} }
	}
	return func() tea.Msg { return openedMsg{id: id, url: url, err: op.Open(ctx, url)} }
}

// onOpened acts on the browser's outcome. For a request: on success it is accepted and
// its flow watched; on failure its screen stays open to say why, with the link in full,
// copied, the QR code and "I opened it myself". For the watched flow's reopen the
// screen says what happened.
func (m *Model) onOpened(msg openedMsg) tea.Cmd {
	why := ""
	if msg.err != nil {
		why = "Could not open the browser: " + oneLine(msg.err.Error()) + ". The link is copied (if your terminal allows it)."
	}
	if msg.id == 0 {
		if w := m.watched(); w != nil && w.f.url == msg.url {
			if why == "" {
				note := "Reopened in your browser."
				if w.f.notOpened {
					note = "Opened in your browser."
				}
				m.openedFlow(w)
				w.s.Reset(note)
				return nil
			}
			w.s.Reset(why)
			return tea.SetClipboard(msg.url)
		}
		return nil
	}
	p, _ := m.inbox.find(msg.id)
	if p == nil || !p.opening {
		return nil // answered or withdrawn meanwhile
	}
	p.opening = false
	if w, ok := p.cs.(*consent.Waiting); ok && !p.req.Consented.IsZero() {
		// A proxy's wait: reopening is not "retry now", the wait goes on.
		if msg.err == nil {
			note := "Reopened in your browser."
			if p.notOpened {
				note = "Opened in your browser."
				p.notOpened = false
				delete(m.copied, copiedKey(p.req))
				w.Opened()
			}
			w.Reset(note)
			return nil
		}
		w.Reset(why)
		return tea.SetClipboard(msg.url)
	}
	if msg.err == nil {
		cmd := m.accept(p, true)
		m.status = "opened " + oneLine(safe.Block(msg.url))
		return cmd
	}
	m.status = "no browser: open the link yourself"
	if f, ok := p.cs.(interface{ OpenFailed(error) tea.Cmd }); ok {
		return f.OpenFailed(msg.err)
	}
	if w, ok := p.cs.(*consent.Waiting); ok {
		w.Reset(why)
		return tea.SetClipboard(msg.url)
	}
	// A screen that cannot say it: accept, as the link is copied.
	m.status = why
	return tea.Batch(tea.SetClipboard(msg.url), m.accept(p, false))
}

// accept answers p with accept after the user consented, and watches its flow; opened
// is false when nothing opened the link (it was only copied).
func (m *Model) accept(p *pending, opened bool) tea.Cmd {
	since := m.now
	if p.req.Repeat > 0 && !p.since.IsZero() {
		since = p.since // the same link as an earlier round: the wait goes on
	}
	f, tracked := m.track(p.req, p.call, since, !opened)
	if !opened && p.req.Host != "" {
		m.noteCopied(p.req)
	}
	cmd := m.answerPending(p, elicit.Response{Action: elicit.Accept})
	if tracked {
		m.watchFlow(f)
		m.status = oneLine(p.req.Server) + ": accepted; waiting for the step in your browser"
		if !opened {
			m.status = oneLine(p.req.Server) + ": accepted; waiting for the step at the link"
		}
	}
	return cmd
}

// answerPending replies to p (the open request or one set aside) and moves on.
func (m *Model) answerPending(p *pending, r elicit.Response) tea.Cmd {
	if m.active == p {
		return m.answered(r, nil)
	}
	m.inbox.remove(p.id)
	p.answer(r)
	m.status = describe(p.req) + ": " + string(r.Action)
	return nil
}

// sinceOf returns when the flow of call that waited for url began, or now.
func (m *Model) sinceOf(call callID, url string) time.Time {
	for _, f := range m.inbox.flows {
		if f.call == call && f.url == url && !f.since.IsZero() {
			return f.since
		}
	}
	return m.now
}

// maxCopied bounds Model.copied.
const maxCopied = 64

// copiedKey names a proxy's link in Model.copied: the host, the server and the URL.
func copiedKey(req *elicit.Request) string {
	return req.Host + "\x00" + req.Server + "\x00" + req.URL
}

// noteCopied remembers that the user consented to req, a proxy's link, without opening
// it (Copy link only, or a browser that failed), so that the proxy's wait for it that
// follows (Request.Consented) speaks of the step at the link and offers o open.
func (m *Model) noteCopied(req *elicit.Request) {
	if m.copied == nil || len(m.copied) >= maxCopied {
		m.copied = map[string]bool{}
	}
	m.copied[copiedKey(req)] = true
}
