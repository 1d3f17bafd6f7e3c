package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
)

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
// takes as "retry now"; o reopens the link and keeps waiting; c stops waiting (it asks
// first).
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
	h.keys("c") // asks first
	noReply(t, reply)
	h.keys("y")
	if r := replied(t, reply); r.Action != elicit.Cancel {
		t.Errorf("c, y answered %+v, want cancel", r)
	}
}

// TestProxyWaitAfterCopyOnly: when the user consented to a proxy's link with "Copy
// link only", the proxy's wait that follows speaks of the step at the link, not of a
// browser, in its screen and its Inbox row, and offers o open; o opens the link and
// then the wait speaks of the browser.
func TestProxyWaitAfterCopyOnly(t *testing.T) {
	op := &fakeOpener{}
	h := newHarness(t, Options{InboxOnly: true, Opener: op})
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	ask := proxyWait()
	ask.Consented = time.Time{} // the question itself, before consent
	reply := h.request(1, ask)
	h.keys("c") // copy link only
	if r := replied(t, reply); r.Action != elicit.Accept {
		t.Fatalf("copy only answered %+v, want accept", r)
	}
	reply = h.request(2, proxyWait())
	wantStepAtLink(t, h.screen())
	h.keys("<ctrl+b>")
	if s := h.screen(); !strings.Contains(s, "waiting for the step at the link") || strings.Contains(s, "in the browser") {
		t.Errorf("the Inbox row speaks of a browser though nothing was opened:\n%s", s)
	}
	h.keys("<enter>", "o")
	noReply(t, reply)
	if len(op.opened) != 1 {
		t.Fatalf("o opened %v, want the link once", op.opened)
	}
	if s := h.screen(); !strings.Contains(s, "Opened in your browser.") || !strings.Contains(s, "o reopen") ||
		!strings.Contains(s, "Waiting for the step in your browser") {
		t.Errorf("after o the wait does not say the link is open:\n%s", s)
	}
	h.keys("<ctrl+b>")
	if s := h.screen(); !strings.Contains(s, "waiting for the step in the browser") {
		t.Errorf("after o the Inbox row does not speak of the browser:\n%s", s)
	}
}
