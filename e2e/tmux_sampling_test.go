package e2e

import (
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// TestTmuxTUISampling runs `elicitty demo` in both eras (and over HTTP) at 80x24, calls summarize,
// writes the assistant's reply in the sampling screen, reviews it and reads the
// server's echo of the reply in the result pane.
func TestTmuxTUISampling(t *testing.T) {
	for _, tc := range []struct{ name, era, transport string }{
		{"stdio 2025-11-25", "2025-11-25", "stdio"},
		{"stdio 2026-07-28", "2026-07-28", "stdio"},
		{"http 2025-11-25", "2025-11-25", "http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target, server := "demo", "demo"
			if tc.transport == "http" {
				target = startDemoHTTP(t)
				server = strings.TrimSuffix(strings.TrimPrefix(target, "http://"), "/mcp")
			}
			tm := startTerm(t, tmuxterm.Options{}, target, "--protocol", tc.era)
			tm.WaitFor("ready " + tc.era)
			selectTool(t, tm, "summarize")
			tm.Keys("Enter")
			tm.WaitFor("Arguments for tool summarize on")
			tm.WaitFocus("text")
			tm.TypeText("The cat sat on the mat.")
			tm.WaitFor("┃ > The cat sat on the mat.")
			tm.Keys("Enter")
			tm.WaitFor("[ Call ]")
			tm.Keys("a")
			tm.WaitFor("asks for a model reply", "System prompt", "You write one-sentence summaries",
				"Summarize in one sentence:", "Your reply, as the assistant", "Model name (tab): human")
			tm.TypeText("A cat sat.")
			tm.WaitFor("│ A cat sat.")
			tm.Keys("C-s")
			tm.WaitFor(`Send this reply to "`+server+`"?`, `as model "human", role assistant, stop reason endTurn`)
			tm.Keys("a")
			tm.WaitFor("tools/call summarize · done", "summary by human (endTurn): A cat sat.", "0 pending")
			tm.Keys("q")
			if code, _ := tm.Wait(); code != 0 {
				t.Errorf("elicitty demo exited %d after q, want 0", code)
			}
		})
	}
}

// TestTmuxInlineSampling answers summarize at the inline prompt of `elicitty call`:
// the request is shown, the reply typed line by line, the model name set, and the
// reply reviewed before it is sent.
func TestTmuxInlineSampling(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "call", "summarize", "text=Cats sit on mats.", "--", bin, "serve-demo")
	tm.WaitFor("asks for a model reply (sampling) for summarize", "You write one-sentence summaries",
		"Cats sit on mats.", `stop at "\n\n"`, `Write the assistant's reply; end it with a line holding only "."`)
	tm.TypeText("Cats sit.")
	tm.Keys("Enter")
	tm.TypeText(".")
	tm.Keys("Enter")
	tm.WaitFor("Model name [human]:")
	tm.TypeText("ada")
	tm.Keys("Enter")
	tm.WaitFor(`Reply to send to elicitty (elicitty-demo) as model "ada" (stop reason endTurn):`, "Send it? [y]es, [e]dit, [d]ecline, [c]ancel:")
	tm.TypeText("y")
	tm.Keys("Enter")
	code, stdout := tm.Wait()
	if code != 0 || strings.TrimSpace(stdout) != "summary by ada (endTurn): Cats sit." {
		t.Fatalf("exit %d, stdout %q\nscreen:\n%s", code, stdout, tm.Screen())
	}
}

// TestTmuxEverythingSampling answers server-everything's trigger-sampling-request in
// the TUI and at the inline prompt (stdio).
func TestTmuxEverythingSampling(t *testing.T) {
	js := everythingJS(t)
	t.Run("tui", func(t *testing.T) {
		t.Parallel()
		tm := startTerm(t, tmuxterm.Options{}, "--", "node", js, "stdio")
		tm.WaitFor("node ready", "get-sum")
		selectTool(t, tm, "trigger-sampling-request")
		tm.Keys("Enter")
		tm.WaitFor("Arguments for tool trigger-sampling-request")
		tm.WaitFocus("prompt *")
		tm.TypeText("the sea")
		tm.WaitFor("┃ > the sea")
		tm.Keys("Enter")
		tm.WaitFocus("maxTokens") // keeps its default
		tm.Keys("Enter")
		tm.WaitFor("[ Call ]")
		tm.Keys("a")
		tm.WaitFor("asks for a model reply", "You are a helpful test server.",
			"Resource trigger-sampling-request context: the sea", "temperature 0.7")
		tm.TypeText("Blue and wide.")
		tm.WaitFor("│ Blue and wide.")
		tm.Keys("C-s")
		tm.WaitFor("Send this reply to")
		tm.Keys("a")
		tm.WaitFor("tools/call trigger-sampling-request done", `"text": "Blue and wide."`, `"model": "human"`)
		tm.Keys("q")
		tm.Wait()
	})
	t.Run("inline", func(t *testing.T) {
		t.Parallel()
		tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "call", "trigger-sampling-request", "prompt=the sea", "--", "node", js, "stdio")
		tm.WaitFor("Resource trigger-sampling-request context: the sea", "You are a helpful test server.", "Write the assistant's reply")
		tm.TypeText("/decline")
		tm.Keys("Enter")
		code, stdout := tm.Wait()
		if code != 1 || !strings.Contains(stdout+tm.Screen(), "User rejected sampling request") {
			t.Fatalf("exit %d, stdout %q; want 1 and the rejection\nscreen:\n%s", code, stdout, tm.Screen())
		}
	})
}
