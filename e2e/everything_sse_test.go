package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEverythingSSEFallback reaches server-everything's legacy HTTP+SSE mode with
// default flags: Streamable HTTP is refused, elicitty falls back to SSE offering
// 2025-11-25 with that era's capabilities (tasks included), so the server shows its
// task-based tools, and the era's reason blames the transport, not initialize.
func TestEverythingSSEFallback(t *testing.T) {
	js := everythingJS(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is missing: scripts/setup.sh installs util-linux")
	}
	run := func(args ...string) result {
		argv := []string{"unshare", "-n", "bash", "testdata/ns-run.sh", "3001", "PORT=3001 node " + js + " sse", bin}
		argv = append(append(argv, args[0], "http://127.0.0.1:3001/sse"), args[1:]...)
		return runArgv(t, argv)
	}
	// An answers file with a sampling entry lets elicitty declare sampling.
	answers := writeFile(t, "sampling.yaml", "- kind: sampling\n  action: decline\n")
	r := run("tools", "--answers", answers)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, tool := range []string{"trigger-elicitation-request", "trigger-elicitation-request-async", "trigger-sampling-request-async"} {
		if !strings.Contains(r.stdout, tool+" ") {
			t.Errorf("tools over SSE lacks %q (shown only to clients declaring tasks):\n%s", tool, r.stdout)
		}
	}
	r = run("doctor")
	if !strings.Contains(r.stdout, "Streamable HTTP was refused") || strings.Contains(r.stdout, "refused initialize") {
		t.Errorf("doctor's era line (exit %d):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestEverythingTasksSaysWhenNone: `elicitty tasks` on a server that keeps no tasks
// says so instead of printing nothing.
func TestEverythingTasksSaysWhenNone(t *testing.T) {
	js := everythingJS(t)
	r := runBinHere(t, "tasks", "--", "node", js, "stdio")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "the server keeps no tasks for this client") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
