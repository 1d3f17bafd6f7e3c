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

// TestLogEntryScrolls: at 60x15 an expanded log entry taller than its room says which
// lines show, and pgdn reaches its end.
func TestLogEntryScrolls(t *testing.T) {
	h := started(t, Options{})
	h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
	h.send(logEntriesMsg(logEntries()))
	h.keys("<tab>", "<tab>", "<tab>", "/")
	h.typeText("method:tools")
	h.keys("<enter>", "<enter>") // keep the filter, expand the only match
	s := h.screen()
	if !strings.Contains(s, "── lines 1-9 of 11 · pgup/pgdn") {
		t.Fatalf("the entry does not say it scrolls:\n%s", s)
	}
	h.keys("<pgdown>", "<pgdown>", "<pgdown>")
	s = h.screen()
	testkit.Golden(t, "log_entry_scrolled_60x15", s)
	if !strings.Contains(s, "── lines 3-11 of 11") || !strings.Contains(s, `"text": "hi"`) {
		t.Fatalf("pgdn did not reach the end of the entry:\n%s", s)
	}
}
