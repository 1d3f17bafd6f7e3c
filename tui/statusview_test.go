package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// TestStatusInFull: a status the bar must cut ends with the key that shows it, and that
// key opens the whole message over the screen, wrapped, even on a form; any key closes
// it and goes no further.
func TestStatusInFull(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			h := realHarness(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			reply := h.request(1, &elicit.Request{Server: "demo", Message: "Who?", Schema: json.RawMessage(nameSchema)})
			h.m.status = "demo: the server said something long enough that no status bar of this width can show all of it, ending in THE-END"
			s := h.screen()
			if !strings.Contains(s, "ctrl+o full") || strings.Contains(s, "THE-END") {
				t.Fatalf("the cut status does not offer ctrl+o:\n%s", s)
			}
			h.keys("<ctrl+o>")
			s = h.screen()
			testkit.Golden(t, "status_full_"+size.name, s)
			if !strings.Contains(strings.Join(strings.Fields(s), " "), "ending in THE-END") {
				t.Fatalf("ctrl+o did not show the whole status:\n%s", s)
			}
			h.keys("x") // closes the status; the form does not get it
			if s := h.screen(); !strings.Contains(s, "┃ Name") || strings.Contains(s, "> x") {
				t.Fatalf("after closing the status, want the form untouched:\n%s", s)
			}
			noReply(t, reply)
		})
	}
}

// TestInboxSmallScreen: at 60x15 and 80x24 an inbox longer than the screen scrolls to
// keep the selected request in view, and every entry shows its age and time left
// before its message is cut.
func TestInboxSmallScreen(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			h := realHarness(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			for i := range 12 {
				h.request(reqID(i+1), &elicit.Request{Server: "demo", Call: "tools/call form_all_kinds_with_a_long_name",
					Message:  fmt.Sprintf("Request number %d asks a question long enough to be cut at eighty columns", i+1),
					Deadline: epoch.Add(90 * time.Second), Schema: json.RawMessage(nameSchema)})
			}
			s := h.screen()
			if !strings.Contains(s, "1m30s left · 11 more pending") {
				t.Errorf("the form's title lost its time left:\n%s", s)
			}
			h.keys("<ctrl+b>", "i")
			for range 11 {
				h.keys("<down>")
			}
			s = h.screen()
			testkit.Golden(t, "inbox_scrolled_"+size.name, s)
			if !strings.Contains(s, "12. demo form") || !strings.Contains(s, "0s ago, 1m30s left · Request number 12") {
				t.Errorf("the selected (last) request is not in view with its time left:\n%s", s)
			}
		})
	}
}
