package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestTmuxTUIResourceTemplate runs `elicitty demo` at 80x24 and 60x15, opens the
// demo's resource template demo://items/{id}, types an id as a user would, picks one of
// the server's suggestions (the input and the Read button stay in view while they are
// listed) and reads the URI the template makes.
func TestTmuxTUIResourceTemplate(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {60, 15}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			tm := startTerm(t, termOptions{cols: size[0], rows: size[1]}, "demo")
			tm.waitFor("demo ready")
			tm.keys("Tab", "Tab")
			tm.waitFor("demo://items/{id}  template:")
			tm.keys("Enter") // the template sorts first
			tm.waitFor("resources/read demo://items/{id} on demo", "URI: demo://items/", "> id* ▏", "    1\n", "[ Read ]")
			tm.typeText("4")
			screen := tm.waitFor("URI: demo://items/4", "    404", "> id* 4▏", "[ Read ]")
			if strings.Contains(screen, "    12") {
				t.Errorf("suggestions not narrowed to what was typed:\n%s", screen)
			}
			tm.keys("Down", "Down")
			tm.waitFor("› 42")
			tm.keys("Enter") // takes 42
			tm.waitFor("URI: demo://items/42", "> id* 42▏")
			tm.keys("Enter") // reads
			tm.waitFor("demo://items/42 (text/plain)", "item 42")
			tm.keys("q")
			if code, _ := tm.wait(); code != 0 {
				t.Errorf("elicitty demo exited %d after q, want 0", code)
			}
		})
	}
}

// TestTmuxTUIPromptCompletions fills the demo's greet prompt at 60x15 with a name the
// server suggests for what was typed.
func TestTmuxTUIPromptCompletions(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, termOptions{cols: 60, rows: 15}, "demo")
	tm.waitFor("demo ready")
	tm.keys("Tab")
	tm.waitFor("demo       greet")
	tm.keys("Enter")
	tm.waitFor("prompts/get greet on demo", "    Ada", "[ Get ]")
	tm.typeText("g")
	tm.waitUntil("the names starting with g", false, func(s string) bool {
		return strings.Contains(s, "    Grace") && !strings.Contains(s, "Ada")
	})
	tm.keys("Tab") // takes the first
	tm.waitFor("> name* Grace▏")
	tm.keys("Enter")
	tm.waitFor("Say hello to Grace.")
}
