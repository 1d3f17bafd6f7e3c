package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/internal/testkit"
)

// TestHelpSmallScreen: at 60x15 the short help starts with ? and q, and the full help,
// too big for the help bar, fills the main area, scrolls to its last key, and closes on
// any other key. At 80x24 it stays in the help bar (see TestFullHelp).
func TestHelpSmallScreen(t *testing.T) {
	h := started(t, Options{})
	h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
	if s := h.screen(); !strings.Contains(s, "? help • q quit") {
		t.Fatalf("the cut short help hides ? and q:\n%s", s)
	}
	h.keys("?")
	s := h.screen()
	testkit.Golden(t, "help_60x15", s)
	if !strings.Contains(s, "Keys 1-") || !strings.Contains(s, "close help") {
		t.Fatalf("the full help is not a scrolling screen:\n%s", s)
	}
	for range 20 {
		h.keys("<down>")
	}
	if s := h.screen(); !strings.Contains(s, "prev result") || !strings.Contains(s, "quit") {
		t.Fatalf("scrolling did not reach the last keys:\n%s", s)
	}
	h.keys("x")
	if s := h.screen(); strings.Contains(s, "close help") || !strings.Contains(s, "? help") {
		t.Fatalf("any other key did not close the help:\n%s", s)
	}
}

// TestDescribeSmallScreen: at 60x15 a tool's description scrolls with its keys in full.
func TestDescribeSmallScreen(t *testing.T) {
	h := newHarness(t, Options{Servers: demoServers(), dial: connector(bookSession())})
	h.run(h.m.Init())
	h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
	h.keys("d") // book, the first tool
	s := h.screen()
	testkit.Golden(t, "tool_describe_60x15", s)
	if !strings.Contains(s, "pgup/pgdn · other key: close") {
		t.Fatalf("the description's keys are cut:\n%s", s)
	}
}
