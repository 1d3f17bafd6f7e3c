package e2e

import (
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/cli"
)

// taskCallOutput is call --json's output with the task a tool ran as.
type taskCallOutput struct {
	callOutput
	Task *struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
		Tool   string `json:"tool"`
		Mine   bool   `json:"mine"`
	} `json:"task"`
}

// TestEverythingTasks runs server-everything's task tools over stdio and HTTP:
// simulate-research-query requires a task and, for an ambiguous topic, asks for a
// clarification while it runs (delivered through tasks/result); the async elicitation
// tool is offered only to a client that declares task-augmented elicitation, and polls
// the task we keep while the answer is given.
func TestEverythingTasks(t *testing.T) {
	for name, target := range everythingTargets(t) {
		t.Run(name, func(t *testing.T) {
			r := runArgv(t, target("tools"))
			if r.code != 0 {
				t.Fatalf("tools: exit %d: %s", r.code, r.stderr)
			}
			for _, tool := range []string{"simulate-research-query", "trigger-elicitation-request-async"} {
				if !strings.Contains(r.stdout, tool) {
					t.Errorf("tools lacks %q:\n%s", tool, r.stdout)
				}
			}
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(line, "simulate-research-query ") && !strings.Contains(line, "[task required]") {
					t.Errorf("tools does not say simulate-research-query runs as a task: %q", line)
				}
			}

			r = runArgv(t, target("call", "simulate-research-query", `{"topic":"python","ambiguous":true}`, "--json", "--answers", "testdata/tasks-answers.yaml"))
			if r.code != 0 {
				t.Fatalf("simulate-research-query: exit %d: %s", r.code, r.stderr)
			}
			var out taskCallOutput
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
			}
			if text := resultText(out.callOutput); !strings.Contains(text, "# Research Report: python (snake)") {
				t.Errorf("the report does not carry the clarification answered during the task:\n%s", text)
			}
			if out.Task == nil || out.Task.Status != "completed" || out.Task.Tool != "simulate-research-query" || !out.Task.Mine {
				t.Errorf("task in the output = %+v, want the completed task of simulate-research-query", out.Task)
			}
			if !strings.Contains(r.stderr, "input_required") {
				t.Errorf("stderr does not show the task's input_required status:\n%s", r.stderr)
			}

			r = runArgv(t, target("call", "trigger-elicitation-request-async", "--answers", "testdata/tasks-answers.yaml"))
			if r.code != 0 {
				t.Fatalf("trigger-elicitation-request-async: exit %d: %s", r.code, r.stderr)
			}
			for _, want := range []string{"[COMPLETED] User provided the requested information!", "- Name: Ada", "- Favorite Color: Red", `"io.modelcontextprotocol/related-task"`} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the server did not get the answer through our task: no %q in\n%s", want, r.stdout)
				}
			}
		})
	}
}

// TestEverythingTaskUnanswered: without answers and without a terminal, the question a
// task asks is not guessed: the call exits 3, as for any elicitation.
func TestEverythingTaskUnanswered(t *testing.T) {
	target := everythingTargets(t)["stdio"]
	r := runArgv(t, target("call", "simulate-research-query", `{"topic":"python","ambiguous":true}`))
	if r.code != cli.ExitUnanswered {
		t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", r.code, cli.ExitUnanswered, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "interpretation") {
		t.Errorf("stderr does not print an answers entry for the task's question:\n%s", r.stderr)
	}
}

// TestFieldTypeScriptTaskExamples runs the TypeScript SDK's task example servers with
// their default flags: simpleTaskInteractive's confirm_delete (a required task whose
// elicitation is delivered through tasks/result) and simpleStreamableHttp's task tools
// (delay, and collect-user-info-task, which elicits while its task runs).
func TestFieldTypeScriptTaskExamples(t *testing.T) {
	dir := tsExamples(t)
	t.Run("simpleTaskInteractive", func(t *testing.T) {
		marker := "--elicitty-test=" + t.TempDir()
		addr := freeAddr(t)
		_, port, _ := net.SplitHostPort(addr)
		startServer(t, addr, marker, []string{"PORT=" + port}, "node", filepath.Join(dir, "simpleTaskInteractive.js"), marker)
		url := "http://localhost:" + port + "/mcp"
		for action, want := range map[string]string{
			"accept\n  content: {confirm: true}":  "Deleted 'a.txt'",
			"accept\n  content: {confirm: false}": "Deletion cancelled",
			"decline":                             "Deletion cancelled",
		} {
			out, r := callWithAnswers(t, "- match: {tool: confirm_delete}\n  action: "+action+"\n", url, "confirm_delete", "filename=a.txt")
			if r.code != 0 {
				t.Fatalf("%s: exit %d\n%s", action, r.code, r.stderr)
			}
			if got := resultText(out); got != want {
				t.Errorf("%s: the server answered %q, want %q", action, got, want)
			}
		}
		// A sampling request raised inside the task, answered from the file.
		out, r := callWithAnswers(t, "- kind: sampling\n  match: {tool: write_haiku, message: \"*haiku about tea*\"}\n  action: accept\n  reply: {text: \"Steam over the cup\"}\n",
			url, "write_haiku", "topic=tea")
		if r.code != 0 {
			t.Fatalf("write_haiku: exit %d\n%s", r.code, r.stderr)
		}
		if got := resultText(out); got != "Haiku:\nSteam over the cup" {
			t.Errorf("write_haiku: the server answered %q", got)
		}
		r = runBin(t, nil, "tasks", url)
		if r.code != cli.ExitConn || !strings.Contains(r.stderr, "does not declare tasks.list") {
			t.Errorf("tasks on a server without tasks/list: exit %d, stderr %s", r.code, r.stderr)
		}
	})
	t.Run("simpleStreamableHttp", func(t *testing.T) {
		marker := "--elicitty-test=" + t.TempDir()
		addr := freeAddr(t)
		_, port, _ := net.SplitHostPort(addr)
		startServer(t, addr, marker, []string{"MCP_PORT=" + port}, "node", filepath.Join(dir, "simpleStreamableHttp.js"), marker)
		url := "http://localhost:" + port + "/mcp"
		out, r := callWithAnswers(t, "- match: {tool: collect-user-info-task}\n  action: accept\n  content: {name: Ada, email: ada@example.com}\n",
			url, "collect-user-info-task", "infoType=contact")
		if r.code != 0 {
			t.Fatalf("collect-user-info-task: exit %d\n%s", r.code, r.stderr)
		}
		if got := resultText(out); !strings.Contains(got, `"email": "ada@example.com"`) || !strings.HasPrefix(got, "Collected contact info") {
			t.Errorf("collect-user-info-task answered %q", got)
		}
		out, r = callWithAnswers(t, "[]\n", url, "delay", "duration=200")
		if r.code != 0 || resultText(out) != "Completed 200ms delay" {
			t.Errorf("delay: exit %d, %q\n%s", r.code, resultText(out), r.stderr)
		}
	})
}
