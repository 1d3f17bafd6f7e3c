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

// TestProxiedAskNeverTakesFocus: in the full program a proxy's question never opens by
// itself (the keys the user types next would land in it): it rings the bell, shows a
// badge and waits in the Inbox until the user opens it; the program's own questions
// still open, and answering one does not open the proxy's next.
func TestProxiedAskNeverTakesFocus(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := started(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			reply := h.request(1, proxyAsk())
			if h.m.active != nil {
				t.Fatalf("the proxy's question took the keyboard:\n%s", h.screen())
			}
			bell := false
			for _, m := range h.side {
				if r, ok := m.(tea.RawMsg); ok && r.Msg == "\a" {
					bell = true
				}
			}
			got := h.screen()
			if !bell || !strings.Contains(got, "1 new") || !strings.Contains(got, "Inbox 1") {
				t.Errorf("no bell (%v) or badge:\n%s", bell, got)
			}
			h.keys("j", "<enter>") // meant for the Tools list
			noReply(t, reply)
			if h.m.active != nil && h.m.active.id == 1 {
				t.Fatal("keys reached the proxy's question")
			}
			h.keys("<esc>") // close the argument form enter opened, if any
			// The program's own question opens; once answered, the proxy's stays put.
			own := h.request(2, &elicit.Request{Server: "demo", Message: "Own?", Schema: []byte(`{"type":"object","properties":{}}`)})
			if h.m.active == nil || h.m.active.id != 2 {
				t.Fatalf("the program's own question did not open:\n%s", h.screen())
			}
			h.keys("<esc>")
			replied(t, own)
			if h.m.active != nil {
				t.Fatalf("the proxy's question opened after the own one was answered:\n%s", h.screen())
			}
			h.keys("i", "<enter>")
			if h.m.active == nil || h.m.active.id != 1 {
				t.Fatalf("enter in the Inbox did not open the proxy's question:\n%s", h.screen())
			}
		})
	}
}

// TestProxyGoneStaysInTheInbox: a proxy that leaves is noted in the Inbox, where the
// withdrawals of its questions, arriving at the same moment, do not replace it.
func TestProxyGoneStaysInTheInbox(t *testing.T) {
	h := newHarness(t, Options{InboxOnly: true})
	h.send(proxiesMsg{{Host: "Claude Desktop", Server: "github", PID: 42}})
	h.request(1, proxyAsk())
	h.send(proxiesMsg{})
	h.send(elicitGoneMsg{id: 1, why: "withdrawn: the proxy left"})
	h.keys("<ctrl+b>")
	if got := h.screen(); !strings.Contains(got, "proxy gone: Claude Desktop › github") {
		t.Errorf("the proxy's leaving is not on screen:\n%s", got)
	}
}
