package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
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
			tm := startTerm(t, tmuxterm.Options{Cols: size[0], Rows: size[1]}, "demo")
			tm.WaitFor("demo ready")
			tm.Keys("Tab", "Tab")
			tm.WaitFor("demo://items/{id}  template:")
			tm.Keys("Enter") // the template sorts first
			tm.WaitFor("resources/read demo://items/{id} on demo", "URI: demo://items/", "> id* ▏", "    1\n", "[ Read ]")
			tm.TypeText("4")
			screen := tm.WaitFor("URI: demo://items/4", "    404", "> id* 4▏", "[ Read ]")
			if strings.Contains(screen, "    12") {
				t.Errorf("suggestions not narrowed to what was typed:\n%s", screen)
			}
			tm.Keys("Down", "Down")
			tm.WaitFor("› 42")
			tm.Keys("Enter") // takes 42
			tm.WaitFor("URI: demo://items/42", "> id* 42▏")
			tm.Keys("Enter") // reads
			tm.WaitFor("demo://items/42 (text/plain)", "item 42")
			tm.Keys("q")
			if code, _ := tm.Wait(); code != 0 {
				t.Errorf("elicitty demo exited %d after q, want 0", code)
			}
		})
	}
}

// TestTmuxTUIPromptCompletions fills the demo's greet prompt at 60x15 with a name the
// server suggests for what was typed.
func TestTmuxTUIPromptCompletions(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{Cols: 60, Rows: 15}, "demo")
	tm.WaitFor("demo ready")
	tm.Keys("Tab")
	tm.WaitFor("demo       greet")
	tm.Keys("Enter")
	tm.WaitFor("prompts/get greet on demo", "    Ada", "[ Get ]")
	tm.TypeText("g")
	tm.WaitUntil("the names starting with g", false, func(s string) bool {
		return strings.Contains(s, "    Grace") && !strings.Contains(s, "Ada")
	})
	tm.Keys("Tab") // takes the first
	tm.WaitFor("> name* Grace▏")
	tm.Keys("Enter")
	tm.WaitFor("Say hello to Grace.")
}

// TestTmuxTUIEverythingCompletions runs the TUI over server-everything over stdio: its
// completable-prompt narrows the second argument's suggestions by the first (sent as
// context), and its text template is read with an id typed into the template's form.
func TestTmuxTUIEverythingCompletions(t *testing.T) {
	js := everythingJS(t)
	t.Parallel()
	// Registered first, the check runs after the terminal is gone: no process of the
	// run (node included) may outlive it.
	mark := runMark(t)
	tm := startTerm(t, tmuxterm.Options{Env: []string{mark}}, "--", "node", js, "stdio")
	tm.WaitFor("ready", "completions")
	tm.Keys("Tab")
	tm.WaitFor("completable-prompt")
	tm.Keys("/")
	tm.TypeText("completable")
	tm.Keys("Enter")
	tm.WaitFor("Prompts: 1/")
	tm.Keys("Enter")
	tm.WaitFor("prompts/get completable-prompt on", "> department* ▏", "[ Get ]")
	tm.TypeText("S")
	tm.WaitFor("    Sales", "    Support")
	tm.Keys("Tab") // takes Sales
	tm.WaitFor("> department* Sales▏")
	tm.Keys("Enter") // the next field: its suggestions depend on the department
	tm.WaitFor("> name*", "    David", "    Eve", "    Frank")
	tm.Keys("Down", "Enter") // takes David
	tm.WaitUntil("David in the name field", false, func(s string) bool { return hasLine(s, "> name*", " David▏") })
	tm.Keys("Enter")
	tm.WaitFor("Please promote David to the head of the Sales team.")

	tm.Keys("Tab")
	tm.WaitFor("demo://resource/dynamic/text/{resourceId}")
	tm.Keys("/")
	tm.TypeText("text/{")
	tm.Keys("Enter")
	tm.WaitFor("Resources: 1/")
	tm.Keys("Enter")
	tm.WaitFor("URI: demo://resource/dynamic/text/", "> resourceId* ▏", "[ Read ]")
	tm.TypeText("3")
	tm.WaitFor("URI: demo://resource/dynamic/text/3", "    3\n")
	tm.Keys("Escape") // closes the list
	tm.WaitFor("enter read · ↑/↓ fields")
	tm.Keys("Enter")
	tm.WaitFor("Resource 3: This is a plaintext resource")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("elicitty exited %d after q, want 0", code)
	}
}

// hasLine reports whether one line of screen contains every one of parts.
func hasLine(screen string, parts ...string) bool {
	for _, l := range strings.Split(screen, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}
