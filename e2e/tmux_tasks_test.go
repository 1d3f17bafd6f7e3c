package e2e

import (
	"strings"
	"testing"
)

// TestTmuxTUITaskWithElicitation runs the TUI over server-everything (stdio) in a real
// terminal: simulate-research-query requires a task; its status shows in the status
// bar, the clarification it asks for mid-task opens as a form, the report carries the
// answer, and the Tasks view (t) lists the completed task.
// (The status bar's task status is checked by the TUI model tests: here the call's
// end replaces it at once.)
func TestTmuxTUITaskWithElicitation(t *testing.T) {
	js := everythingJS(t)
	t.Parallel()
	tm := startTerm(t, termOptions{cols: 100, rows: 30}, "--", "node", js, "stdio")
	tm.waitFor("ready 2025-11-25", "get-sum")
	selectTool(t, tm, "simulate-research-query") // scrolls to it
	tm.keys("Enter")
	tm.waitFocus("topic *")
	for i, r := range "python" {
		tm.typeText(string(r))
		tm.waitFor("> " + "python"[:i+1])
	}
	tm.keys("Enter")
	tm.waitFocus("ambiguous")
	tm.keys("Left")
	tm.keys("Enter")
	tm.waitFor("Review: Call sends these arguments", `"ambiguous": true`, "[ Call ]")
	tm.keys("a")

	tm.waitFor("Answering node form (push) ← tools/call simulate-research-query", "could have multiple interpretations")
	tm.waitFocus("Clarification *")
	tm.keys("Down")
	tm.waitFor("┃ > Python snake species")
	tm.keys("Enter")
	tm.waitFor(`"interpretation": "snake"`, "[ Accept ]")
	tm.keys("a")
	tm.waitFor("tools/call simulate-research-query · done", "# Research Report: python (snake)")
	tm.keys("t")
	tm.waitFor("Tasks: 1", "completed  simulate-research-query")
	tm.keys("Escape")
	tm.waitUntil("the Tasks view closed", false, func(s string) bool { return !strings.Contains(s, "Tasks: 1") })
	tm.keys("q")
	if code, _ := tm.wait(); code != 0 {
		t.Errorf("elicitty exited %d after q, want 0", code)
	}
}
