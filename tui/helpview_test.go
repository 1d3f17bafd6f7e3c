package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// TestDescribeWrapsAtWords: at 60 and 80 columns a tool's description breaks between
// words, never inside one; only a URL longer than the line is cut, and its pieces still
// add up to it.
func TestDescribeWrapsAtWords(t *testing.T) {
	const url = "https://example.com/a/very/long/path/that/goes/on/and/on/past/any/width/of/this/screen/index.html"
	desc := "URL-mode elicitation: asks the user to open a consent page served by the demo server; " +
		"once its Approve button is pressed the server sends notifications/elicitation/complete " +
		"and the tool returns linked. See " + url + " for more."
	for _, w := range []int{60, 80} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			s := demoSession()
			s.tools = append(s.tools, &mcp.Tool{Name: "a_link", Description: desc,
				InputSchema: json.RawMessage(`{"type":"object"}`)})
			h := newHarness(t, Options{Servers: demoServers()[:1], dial: connector(s)})
			h.run(h.m.Init())
			h.send(tea.WindowSizeMsg{Width: w, Height: 40})
			h.keys("d") // a_link, the first tool
			var words []string
			for _, l := range strings.Split(h.screen(), "\n") {
				if body, ok := strings.CutPrefix(l, "┆ "); ok {
					words = append(words, strings.Fields(body)...)
				}
			}
			var rest []string // the words that are not whole words of desc
			for _, word := range words {
				if !slices.Contains(strings.Fields(desc), word) {
					rest = append(rest, word)
				}
			}
			if got := strings.Join(rest, ""); got != url {
				t.Fatalf("the description is cut inside words %q:\n%s", rest, h.screen())
			}
			if got := strings.Join(words, " "); !strings.Contains(got, "sends notifications/elicitation/complete") {
				t.Fatalf("the description lost words:\n%s", h.screen())
			}
		})
	}
}
