package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

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
