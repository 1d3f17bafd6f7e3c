package tui

import (
	"encoding/json"
	"strings"
	"testing"

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
