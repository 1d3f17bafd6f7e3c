package e2e

import (
	"strings"
	"testing"
)

// TestCLISamplingCommandDraft: the config's sampling.command drafts the reply to the
// demo's summarize; an answers entry with approve: auto sends the draft, one without a
// reply of its own never sends it.
func TestCLISamplingCommandDraft(t *testing.T) {
	cfg := writeFile(t, "config.yaml", "sampling:\n  command: [sh, -c, 'printf \"Drafted from %s bytes.\" $(wc -c)']\n")
	auto := writeFile(t, "auto.yaml", "- kind: sampling\n  match: {tool: summarize}\n  action: accept\n  approve: auto\n")
	r := runBin(t, nil, "--config", cfg, "call", "demo", "summarize", "text=Cats.", "--answers", auto)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "summary by human (endTurn): Drafted from ") {
		t.Fatalf("approve: auto: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "the sampling command's draft, approved by approve: auto") {
		t.Errorf("stderr does not say the draft was sent by approve: auto:\n%s", r.stderr)
	}
	// Without the command, approve: auto has nothing to send: exit 3, nothing sent.
	r = runBin(t, nil, "call", "demo", "summarize", "--answers", auto)
	if r.code != 3 || !strings.Contains(r.stderr, "no sampling command is configured") {
		t.Errorf("approve: auto without a command: exit %d, want 3\n%s", r.code, r.stderr)
	}
}

// TestCLISamplingUnansweredHeadless: without a terminal or sampling entries, sampling
// is not declared, so the demo's summarize says so instead of hanging.
func TestCLISamplingUnansweredHeadless(t *testing.T) {
	r := runBin(t, nil, "call", "demo", "summarize")
	if r.code != 1 || !strings.Contains(r.stdout, "did not declare the sampling capability") {
		t.Errorf("exit %d, want 1 and the demo's refusal\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
