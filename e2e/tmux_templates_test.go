package e2e

import (
	"fmt"
	"os"
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

// TestTmuxTUIEverythingCompletions runs the TUI over server-everything over stdio: its
// completable-prompt narrows the second argument's suggestions by the first (sent as
// context), and its text template is read with an id typed into the template's form.
func TestTmuxTUIEverythingCompletions(t *testing.T) {
	js := everythingJS(t)
	t.Parallel()
	// Registered first, the check runs after the terminal is gone: no process of the
	// run (node included) may outlive it.
	mark := fmt.Sprintf("ELICITTY_TEST_RUN=%d-%d", os.Getpid(), runSeq.Add(1))
	t.Cleanup(func() { noSurvivorsIn(t, "environ", append([]byte(mark), 0)) })
	tm := startTerm(t, termOptions{env: []string{mark}}, "--", "node", js, "stdio")
	tm.waitFor("ready", "completions")
	tm.keys("Tab")
	tm.waitFor("completable-prompt")
	tm.keys("/")
	tm.typeText("completable")
	tm.keys("Enter")
	tm.waitFor("Prompts: 1/")
	tm.keys("Enter")
	tm.waitFor("prompts/get completable-prompt on", "> department* ▏", "[ Get ]")
	tm.typeText("S")
	tm.waitFor("    Sales", "    Support")
	tm.keys("Tab") // takes Sales
	tm.waitFor("> department* Sales▏")
	tm.keys("Enter") // the next field: its suggestions depend on the department
	tm.waitFor("> name*", "    David", "    Eve", "    Frank")
	tm.keys("Down", "Enter") // takes David
	tm.waitUntil("David in the name field", false, func(s string) bool { return hasLine(s, "> name*", " David▏") })
	tm.keys("Enter")
	tm.waitFor("Please promote David to the head of the Sales team.")

	tm.keys("Tab")
	tm.waitFor("demo://resource/dynamic/text/{resourceId}")
	tm.keys("/")
	tm.typeText("text/{")
	tm.keys("Enter")
	tm.waitFor("Resources: 1/")
	tm.keys("Enter")
	tm.waitFor("URI: demo://resource/dynamic/text/", "> resourceId* ▏", "[ Read ]")
	tm.typeText("3")
	tm.waitFor("URI: demo://resource/dynamic/text/3", "    3\n")
	tm.keys("Escape") // closes the list
	tm.waitFor("enter read · ↑/↓ fields")
	tm.keys("Enter")
	tm.waitFor("Resource 3: This is a plaintext resource")
	tm.keys("q")
	if code, _ := tm.wait(); code != 0 {
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
