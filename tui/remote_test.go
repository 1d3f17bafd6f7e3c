package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/elicitty/elicitty/elicit"
)

// proxyAsk is a form a proxy forwards for its host.
func proxyAsk() *elicit.Request {
	return &elicit.Request{Server: "github", Host: "Claude Desktop", Protocol: "2025-11-25", Message: "Which branch?",
		Call: "tools/call deploy", Schema: []byte(`{"type":"object","properties":{"branch":{"type":"string"}}}`)}
}

// TestInboxOnlyShowsProxiesAndTheirAsks: `elicitty inbox` lists the proxies in place of
// servers, says which come and go, and opens a proxy's ask at once with the bell, named
// by host and server.
func TestInboxOnlyShowsProxiesAndTheirAsks(t *testing.T) {
	h := newHarness(t, Options{InboxOnly: true})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	if s := h.screen(); !strings.Contains(s, "Proxies") || !strings.Contains(s, "(none running)") || !strings.Contains(s, "Inbox: 0 pending") {
		t.Fatalf("before any proxy:\n%s", s)
	}
	h.send(proxiesMsg{{Host: "Claude Desktop", Server: "github", PID: 42}})
	s := h.screen()
	for _, want := range []string{"Claude Desktop", "› github", "pid 42", "attached to proxy Claude Desktop › github"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	reply := h.request(1, proxyAsk())
	if h.m.active == nil || h.m.active.id != 1 {
		t.Fatal("the proxy's ask did not open")
	}
	var bell bool
	for _, m := range h.side {
		if r, ok := m.(tea.RawMsg); ok && r.Msg == "\a" {
			bell = true
		}
	}
	if !bell {
		t.Errorf("no bell for a proxy's ask: %v", h.side)
	}
	if got := describe(proxyAsk()); !strings.HasPrefix(got, "Claude Desktop › github form (push) ← tools/call deploy") {
		t.Errorf("describe = %q", got)
	}
	// Set aside, the ask does not stop the inbox from quitting at once: it stays
	// pending in its proxy for another inbox.
	h.keys("<ctrl+b>", "q")
	if h.m.confirm != nil {
		t.Errorf("quitting asks %q", h.m.status)
	}
	noReply(t, reply)
	h.send(proxiesMsg{})
	if s := h.screen(); !strings.Contains(s, "proxy gone: Claude Desktop › github") {
		t.Errorf("after the proxy went:\n%s", s)
	}
}

// TestBridgeWithdrawnShowsTheCause: a proxy's withdrawal names its reason.
func TestBridgeWithdrawnShowsTheCause(t *testing.T) {
	b := NewBridge()
	msgs := make(chan tea.Msg, 4)
	b.attach(func(m tea.Msg) { msgs <- m })
	ctx, cancel := context.WithCancelCause(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := b.Answer(ctx, proxyAsk())
		errc <- err
	}()
	req := (<-msgs).(elicitRequestMsg)
	cancel(errors.New("withdrawn: answered in another inbox\x1b[2J"))
	gone := (<-msgs).(elicitGoneMsg)
	if gone.id != req.id || gone.why != "withdrawn: answered in another inbox" { // the escape sequence stripped
		t.Errorf("gone = %+v", gone)
	}
	if err := <-errc; err == nil {
		t.Error("Answer returned no error after its ask was withdrawn")
	}
}

// proxyWait is what a proxy sends after the user consented to a -32042 link: the
// wait for its completion.
func proxyWait() *elicit.Request {
	return &elicit.Request{Server: "everything", Host: "Claude Code", Protocol: "2025-11-25", Mode: elicit.ModeURL,
		Origin: elicit.OriginURLRequired, Call: "tools/call trigger-url-elicitation", Tool: "trigger-url-elicitation",
		Message: "Authorization is required to continue.", URL: "https://modelcontextprotocol.io",
		ElicitationID: "prereq-1", Index: 1, Total: 1, Consented: epoch.Add(-75 * time.Second)}
}

// TestProxyWaitShowsTheWaitingScreen: after consent to a proxy's -32042 link the
// inbox shows the full-screen program's waiting screen (what is awaited, the time
// since consent, the keys) without ringing again; r answers accept, which the proxy
// takes as "retry now"; o reopens the link and keeps waiting; c stops waiting.
func TestProxyWaitShowsTheWaitingScreen(t *testing.T) {
	op := &fakeOpener{}
	h := newHarness(t, Options{InboxOnly: true, Opener: op})
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	reply := h.request(1, proxyWait())
	s := h.screen()
	for _, want := range []string{"Waiting for the step in your browser", "https://modelcontextprotocol.io", "1m15s",
		"for prereq-1, or at once with r", "r retry now", "o reopen", "c cancel", "1 pending"} {
		if !strings.Contains(s, want) {
			t.Errorf("the waiting screen lacks %q:\n%s", want, s)
		}
	}
	for _, m := range h.side {
		if r, ok := m.(tea.RawMsg); ok && r.Msg == "\a" {
			t.Error("the bell rang for the wait of a link the user just consented to")
		}
	}
	h.keys("o")
	noReply(t, reply)
	if len(op.opened) != 1 || op.opened[0] != "https://modelcontextprotocol.io" {
		t.Errorf("reopen opened %v", op.opened)
	}
	if s := h.screen(); !strings.Contains(s, "Reopened in your browser.") || !strings.Contains(s, "Waiting for the step") {
		t.Errorf("after reopening:\n%s", s)
	}
	// Set aside, the wait is listed in the Inbox as one.
	h.keys("<ctrl+b>")
	if s := h.screen(); !strings.Contains(s, "waiting for the step in the browser") {
		t.Errorf("the Inbox does not list the wait as one:\n%s", s)
	}
	h.keys("<enter>")
	h.keys("r")
	if r := replied(t, reply); r.Action != elicit.Accept {
		t.Errorf("retry now answered %+v, want accept", r)
	}

	reply = h.request(2, proxyWait())
	h.keys("c")
	if r := replied(t, reply); r.Action != elicit.Cancel {
		t.Errorf("c answered %+v, want cancel", r)
	}
}
