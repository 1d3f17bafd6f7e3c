package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
)

// TestInboxNotesDoNotStay: the note about a request the server withdrew goes once the
// user answers another request, and by itself after a while: the Inbox never shows a
// stale note about an earlier question.
func TestInboxNotesDoNotStay(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			now := epoch
			h := started(t, Options{Now: func() time.Time { return now }})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			h.request(1, &elicit.Request{Server: "demo", Call: "tools/call deploy", Message: "Which env?",
				Schema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}}}`)})
			h.send(elicitGoneMsg{id: 1, why: "cancelled by the server"})
			h.keys("i")
			visible(t, h.screen(), "0s ago: cancelled by the server")
			now = epoch.Add(noteFor)
			h.send(clockMsg(now))
			if got := inboxArea(h.screen()); strings.Contains(got, "cancelled by the server") {
				t.Errorf("the note stayed after %v:\n%s", noteFor, got)
			}
			// A new note, then an answer: the note goes with it.
			h.request(2, &elicit.Request{Server: "demo", Message: "Gone soon", Schema: json.RawMessage(`{"type":"object","properties":{}}`)})
			h.send(elicitGoneMsg{id: 2, why: "expired"})
			reply := h.request(3, &elicit.Request{Server: "demo", Message: "Next", Schema: json.RawMessage(`{"type":"object","properties":{}}`)})
			h.keys("<enter>")
			replied(t, reply)
			h.keys("i")
			if got := inboxArea(h.screen()); strings.Contains(got, "expired") {
				t.Errorf("the note stayed after the next answer:\n%s", got)
			}
		})
	}
}

// TestInboxAnswerShowsTheResult: answering the last request from the Inbox tab goes to
// the tab where its call's result shows, with that result selected, instead of leaving
// the user on an empty inbox.
func TestInboxAnswerShowsTheResult(t *testing.T) {
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			h := started(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			other, _ := h.inFlight("demo", "tools/call other")
			call, _ := h.inFlight("demo", "tools/call deploy")
			reply := h.requestIn(1, call, &elicit.Request{Server: "demo", Call: "tools/call deploy", Message: "Sure?",
				Schema: json.RawMessage(`{"type":"object","properties":{}}`)})
			h.keys("<ctrl+b>") // set aside: the Inbox tab
			h.keys("]")        // another result selected meanwhile
			h.keys("i", "<enter>", "<enter>")
			replied(t, reply)
			if h.m.tab != tabTools || h.m.calls.calls[h.m.calls.sel].id != call {
				t.Fatalf("after answering from the Inbox: tab %s, result of call %d (want Tools, call %d; other %d):\n%s",
					tabNames[h.m.tab], h.m.calls.calls[h.m.calls.sel].id, call, other, h.screen())
			}
			visible(t, h.screen(), "tools/call deploy")
		})
	}
}

// inboxArea is the screen between the tab bar and the status bar, right of the
// servers pane when it is drawn.
func inboxArea(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return mainArea(strings.Join(lines[1:len(lines)-2], "\n"))
}
