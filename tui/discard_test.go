package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

const nameSchema = `{"type":"object","properties":{"name":{"type":"string","title":"Name"}}}`

// TestDiscardAsksFirst: esc, ctrl+c and ctrl+x on a form with something typed ask
// before throwing it away; n keeps the form and its text, y (or the key again) does it.
func TestDiscardAsksFirst(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			h := realHarness(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			reply := h.request(1, &elicit.Request{Server: "demo", Message: "Who?", Schema: json.RawMessage(nameSchema)})
			h.typeText("Ada")
			h.keys("<esc>")
			got := h.screen()
			testkit.Golden(t, "discard_ask_"+size.name, got)
			if !strings.Contains(got, "cancel, losing what you typed? y, esc yes · other no") {
				t.Fatalf("esc did not ask:\n%s", got)
			}
			noReply(t, reply)
			h.keys("n")
			if h.m.active == nil || !strings.Contains(h.screen(), "Ada") {
				t.Fatalf("n did not keep the form and its text:\n%s", h.screen())
			}
			h.keys("<ctrl+x>", "y")
			if r := replied(t, reply); r.Action != elicit.Decline {
				t.Errorf("ctrl+x then y answered %s, want decline", r.Action)
			}
		})
	}
}

// TestDiscardCleanFormAtOnce: a form with nothing typed closes at once.
func TestDiscardCleanFormAtOnce(t *testing.T) {
	h := realHarness(t, Options{})
	reply := h.request(1, &elicit.Request{Server: "demo", Message: "Who?", Schema: json.RawMessage(nameSchema)})
	h.keys("<esc>")
	if r := replied(t, reply); r.Action != elicit.Cancel {
		t.Errorf("esc answered %s, want cancel", r.Action)
	}
}

// TestQuitAsksWithPending: q with requests pending asks; q again quits.
func TestQuitAsksWithPending(t *testing.T) {
	h := realHarness(t, Options{})
	h.request(1, &elicit.Request{Server: "demo", Message: "Who?", Schema: json.RawMessage(nameSchema)})
	h.keys("<ctrl+b>")
	_, cmd := h.m.Update(testkit.Key("q"))
	if cmd != nil {
		t.Fatalf("q quit with a request pending")
	}
	if got := h.screen(); !strings.Contains(got, "quit and cancel 1 pending request(s)? y, q yes") {
		t.Fatalf("q did not ask:\n%s", got)
	}
	h.keys("n")
	if h.m.confirm != nil || !strings.Contains(h.m.status, "kept") {
		t.Fatalf("n did not keep on")
	}
	h.keys("q")
	_, cmd = h.m.Update(testkit.Key("q"))
	if cmd == nil {
		t.Fatal("q q did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q q did not quit")
	}
}
