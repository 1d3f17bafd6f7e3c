package e2e

import (
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
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
	tm := startTerm(t, tmuxterm.Options{Cols: 100, Rows: 30}, "--", "node", js, "stdio")
	tm.WaitFor("ready 2025-11-25", "get-sum")
	selectTool(t, tm, "simulate-research-query") // scrolls to it
	tm.Keys("Enter")
	tm.WaitFocus("topic *")
	for i, r := range "python" {
		tm.TypeText(string(r))
		tm.WaitFor("> " + "python"[:i+1])
	}
	tm.Keys("Enter")
	tm.WaitFocus("ambiguous")
	tm.Keys("Left")
	tm.Keys("Enter")
	tm.WaitFor("Review: Call sends these arguments", `"ambiguous": true`, "[ Call ]")
	tm.Keys("a")

	tm.WaitFor("Answering node form (push) ← tools/call simulate-research-query", "could have multiple interpretations")
	tm.WaitFocus("Clarification *")
	tm.Keys("Down")
	tm.WaitFor("┃ > Python snake species")
	tm.Keys("Enter")
	tm.WaitFor(`"interpretation": "snake"`, "[ Accept ]")
	tm.Keys("a")
	tm.WaitFor("tools/call simulate-research-query · done", "# Research Report: python (snake)")
	tm.Keys("t")
	tm.WaitFor("Tasks: 1", "completed  simulate-research-query")
	tm.Keys("Escape")
	tm.WaitUntil("the Tasks view closed", false, func(s string) bool { return !strings.Contains(s, "Tasks: 1") })
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("elicitty exited %d after q, want 0", code)
	}
}
