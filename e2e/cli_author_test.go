package e2e

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/internal/cli"
)

// TestDescLintExitCodes runs `desc lint` on a valid, an invalid and a missing file.
func TestDescLintExitCodes(t *testing.T) {
	r := runBinHere(t, "desc", "lint", "../elicit/desc/testdata/valid/spec-12-7-example.mcpdesc.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "VALID") {
		t.Errorf("valid file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runBinHere(t, "desc", "lint", "../elicit/desc/testdata/invalid/duplicate-name.mcpdesc.yaml")
	if r.code != 1 || !strings.Contains(r.stdout, "duplicate-elicitation-name") {
		t.Errorf("invalid file: exit %d, stdout %q", r.code, r.stdout)
	}
	r = runBinHere(t, "desc", "lint", "--json", "../elicit/desc/testdata/invalid/duplicate-name.mcpdesc.yaml")
	var reports []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &reports); err != nil || len(reports) != 1 {
		t.Errorf("--json: %v\n%s", err, r.stdout)
	}
	r = runBinHere(t, "desc", "lint", "no/such/file.mcpdesc.yaml")
	if r.code != 2 {
		t.Errorf("missing file: exit %d, want 2; stderr %q", r.code, r.stderr)
	}
}

// TestDescPreviewAndRender answers a declared form and a bare schema from answers
// files and checks the response JSON, defaults merged and bad defaults reported.
func TestDescPreviewAndRender(t *testing.T) {
	r := runBinHere(t, "desc", "preview", "../elicit/desc/testdata/valid/spec-12-7-example.mcpdesc.yaml",
		"tools/assign_issue", "choose_assignee", "--answers", "testdata/preview-answers.yaml")
	if r.code != 0 {
		t.Fatalf("preview: exit %d: %s", r.code, r.stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("preview output is not JSON: %v\n%s", err, r.stdout)
	}
	want := map[string]any{"action": "accept", "content": map[string]any{"assignee": "grace"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("preview response (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.stderr, "No assignee was supplied") {
		t.Errorf("preview should show the declaration's when text: %q", r.stderr)
	}

	schema := writeFile(t, "schema.json", `{"type":"object","properties":{"n":{"type":"integer","default":3},"env":{"type":"string","enum":["a","b"],"default":"z"}}}`)
	answers := writeFile(t, "a.yaml", "- match: {}\n  action: accept\n")
	r = runBinHere(t, "render", schema, "--answers", answers)
	if r.code != 0 {
		t.Fatalf("render: exit %d: %s", r.code, r.stderr)
	}
	got = nil
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("render output is not JSON: %v\n%s", err, r.stdout)
	}
	want = map[string]any{"action": "accept", "content": map[string]any{"n": float64(3)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("render response (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.stderr, "default-outside-enum") {
		t.Errorf("render should report the dropped default: %q", r.stderr)
	}
}

// TestDoctor runs the self-test: every feature on stdio and HTTP in both eras.
func TestDoctor(t *testing.T) {
	// runBin gives no session bus: on Linux the keyring is not tried.
	r := runBin(t, nil, "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "all checks passed") {
		t.Fatalf("doctor: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "protocol without --protocol (stdio): 2025-11-25 (the server accepts initialize") {
		t.Errorf("doctor does not say which era a server gets without --protocol:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "FAIL") {
		t.Errorf("doctor printed a failure:\n%s", r.stdout)
	}
	if runtime.GOOS == "linux" && !strings.Contains(r.stdout, "oauth-tokens.json (no OS keyring: no D-Bus session bus)") {
		t.Errorf("doctor does not say where tokens are kept:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "proxy inbox: a proxy listens in ") || !strings.Contains(r.stdout, "proxy inbox: `elicitty inbox` looks in:") {
		t.Errorf("doctor does not say where proxies listen and inboxes look:\n%s", r.stdout)
	}

	// With --json: one JSON document on stdout, the same findings.
	r = runBin(t, nil, "doctor", "--json")
	if r.code != 0 {
		t.Fatalf("doctor --json: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var got struct {
		OK          bool `json:"ok"`
		DefaultEras []struct {
			Transport string `json:"transport"`
			Protocol  string `json:"protocol"`
		} `json:"defaultEras"`
		Columns []struct {
			Transport string `json:"transport"`
			Protocol  string `json:"protocol"`
			Checks    []struct {
				Name string `json:"name"`
				OK   bool   `json:"ok"`
			} `json:"checks"`
		} `json:"columns"`
		TokenStore struct {
			Where string `json:"where"`
		} `json:"tokenStore"`
		Inbox struct {
			ProxyDir string `json:"proxyDir"`
			Places   []struct {
				Dir string `json:"dir"`
			} `json:"places"`
		} `json:"inbox"`
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&got); err != nil || dec.More() {
		t.Fatalf("doctor --json: stdout is not one JSON document (%v):\n%s", err, r.stdout)
	}
	if !got.OK || len(got.DefaultEras) != 2 || got.DefaultEras[0].Protocol != "2025-11-25" || len(got.Columns) != 4 {
		t.Errorf("doctor --json: %+v", got)
	}
	for _, c := range got.Columns {
		if len(c.Checks) == 0 {
			t.Errorf("doctor --json: column %s %s has no checks", c.Transport, c.Protocol)
		}
		for _, chk := range c.Checks {
			if !chk.OK {
				t.Errorf("doctor --json: %s %s: %s failed", c.Transport, c.Protocol, chk.Name)
			}
		}
	}
	if got.TokenStore.Where == "" || got.Inbox.ProxyDir == "" || len(got.Inbox.Places) == 0 {
		t.Errorf("doctor --json lacks the token store or the inbox places: %+v", got)
	}
}

// TestRenderBadSchemaIsUsageError: a schema file that is not JSON is the user's input
// error (exit 2) naming the file, not a connection error (exit 4).
func TestRenderBadSchemaIsUsageError(t *testing.T) {
	schema := writeFile(t, "schema.json", "{\"type\": \"object\",\n \"properties\": nope}")
	r := runBinHere(t, "render", schema, "--on-unanswered", "decline")
	if r.code != cli.ExitUsage {
		t.Fatalf("render of a non-JSON schema: exit %d, want %d; stderr %q", r.code, cli.ExitUsage, r.stderr)
	}
	if !strings.Contains(r.stderr, "schema.json:2:16:") || !strings.Contains(r.stderr, "not valid JSON") {
		t.Errorf("stderr %q should name the file, line and column and say it is not JSON", r.stderr)
	}
}
