package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// TestFilterEveryList: "/" filters the list of every tab; while the filter is typed no
// letter runs as a shortcut ("/sequ" once quit the app), enter keeps the filter and
// esc clears it.
func TestFilterEveryList(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			h := started(t, Options{})
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			h.keys("/")
			for _, r := range "sequ" {
				_, cmd := h.m.Update(testkit.Key(string(r)))
				if cmd != nil {
					if _, quit := cmd().(tea.QuitMsg); quit {
						t.Fatalf("typing %q into the filter quit the program", r)
					}
				}
			}
			if got := h.screen(); !strings.Contains(got, "Tools: 0/2") || !strings.Contains(got, "filter: sequ▏") {
				t.Fatalf("the filter is not typed into the Tools list:\n%s", got)
			}
			if h.m.tab != tabTools || h.m.servers.cursor != 0 {
				t.Fatalf("letters ran as shortcuts: tab %d, server %d", h.m.tab, h.m.servers.cursor)
			}
			for range 4 {
				h.keys("<backspace>")
			}
			h.typeText("ech")
			h.keys("<enter>")
			got := h.screen()
			testkit.Golden(t, "filter_tools_"+size.name, got)
			if !strings.Contains(got, "echo") || strings.Contains(got, "deploy") || strings.Contains(got, "▏") {
				t.Errorf("after enter, want only echo listed and the filter kept:\n%s", got)
			}
			h.keys("<enter>") // opens the one tool left
			if h.m.args == nil || h.m.args.item.name != "echo" {
				t.Fatalf("enter did not open the filtered tool")
			}
			h.keys("<ctrl+b>")
			h.keys("/", "<esc>")
			if got := h.screen(); !strings.Contains(got, "deploy") || strings.Contains(got, "filter:") {
				t.Errorf("esc did not clear the filter:\n%s", got)
			}
		})
	}
}

// TestFilterSelectsFirstMatch: after the filter changes, the selection is its first
// match, never the row that was selected before ("/simulate" then enter once ran
// another tool, at the old row's index).
func TestFilterSelectsFirstMatch(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"60x15", 60, 15}} {
		t.Run(size.name, func(t *testing.T) {
			sess := bookSession() // book, deploy, echo
			h := newHarness(t, Options{Servers: demoServers(), dial: connector(sess)})
			h.run(h.m.Init())
			h.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			h.keys("<down>", "<down>") // echo, the third row
			h.keys("/")
			h.typeText("s") // book ("seats") and deploy ("service")
			h.keys("<enter>", "<enter>")
			if h.m.args == nil || h.m.args.item.name != "book" {
				t.Fatalf("enter after the filter did not open its first match, book:\n%s", h.screen())
			}
			if got := h.screen(); strings.Contains(got, "called") {
				t.Errorf("a tool ran:\n%s", got)
			}
		})
	}
}

// TestFilterInbox: the inbox is filtered by what each request says.
func TestFilterInbox(t *testing.T) {
	h := started(t, Options{})
	h.request(1, &elicit.Request{Server: "demo", Message: "Pick a colour", Schema: []byte(`{"type":"object","properties":{}}`)})
	h.keys("<ctrl+b>")
	h.request(2, &elicit.Request{Server: "demo", Message: "Seats to book", Schema: []byte(`{"type":"object","properties":{}}`)})
	h.keys("<ctrl+b>")
	h.keys("i", "/")
	h.typeText("seat")
	h.keys("<enter>")
	got := h.screen()
	if !strings.Contains(got, "Inbox: 2 pending (1 shown)") || !strings.Contains(got, "Seats to book") || strings.Contains(got, "colour") {
		t.Fatalf("inbox not filtered:\n%s", got)
	}
	h.keys("<enter>")
	if h.m.active == nil || h.m.active.id != 2 {
		t.Errorf("enter did not open the request shown")
	}
}

// TestNextServerNarrows: s narrows every list to the next server and says so; after
// the last server every server shows again.
func TestNextServerNarrows(t *testing.T) {
	h := started(t, Options{})
	h.send(logEntriesMsg(logEntries()))
	h.keys("s")
	got := h.screen()
	testkit.Golden(t, "only_demo", got)
	if !strings.Contains(got, "Tools: 2/2 · only demo") || !strings.Contains(got, "showing only demo") {
		t.Fatalf("s did not narrow to demo:\n%s", got)
	}
	h.keys("<tab>", "<tab>", "<tab>") // Log
	if got := h.screen(); !strings.Contains(got, "only demo") || strings.Contains(got, "→ broken") {
		t.Errorf("the log is not narrowed to demo:\n%s", got)
	}
	h.keys("s") // broken
	if got := h.screen(); !strings.Contains(got, "only broken") || strings.Contains(got, "tools/call") {
		t.Errorf("the log is not narrowed to broken:\n%s", got)
	}
	h.keys("s") // all again
	if got := h.screen(); strings.Contains(got, "· only") || !strings.Contains(got, "showing every server") || !strings.Contains(got, "Log: 7/7") {
		t.Errorf("s after the last server did not show every server:\n%s", got)
	}
}
