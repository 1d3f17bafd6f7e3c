package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/cli"
)

// TestHostileEveryOutput runs every headless command that prints server text over the
// hostile server, in text and --json, and scans the raw bytes of stdout and stderr:
// no ESC, C0 but newline and tab, C1, bidi or zero-width character may be there, and
// none of the lines may be the server's. Each of these commands prints server text
// only in one-line fields here (names, URIs, MIME types, roles, annotations, completion
// values, serverInfo, log lines): a line break in one is shown escaped.
func TestHostileEveryOutput(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("- match: {}\n  action: accept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// render's input: an elicitation as the hostile server sends it, payload in every
	// string the form shows.
	params, _ := json.Marshal(map[string]any{"mode": "form", "message": "ask" + hostilePayload, "requestedSchema": map[string]any{
		"type": "object", "properties": map[string]any{
			"n" + hostilePayload: map[string]any{"type": "string", "title": hostilePayload, "description": hostilePayload, "default": "d" + hostilePayload},
			"e":                  map[string]any{"type": "string", "enum": []any{"x" + hostilePayload, "y"}, "default": "y"},
		}}})
	schema := filepath.Join(dir, "params.json")
	if err := os.WriteFile(schema, params, 0o600); err != nil {
		t.Fatal(err)
	}
	server := []string{"--", srv, "payload"}
	runs := []struct {
		args []string
		code int
	}{
		{[]string{"tools"}, 0},
		{[]string{"prompts"}, 0},
		{[]string{"resources"}, 0},
		{[]string{"read", "file:///r"}, 0},
		{[]string{"call", "media"}, 0},
		{[]string{"prompt", "p"}, 0},
		{[]string{"complete", "--prompt", "p", "--arg", "a=x"}, 0},
		{[]string{"tasks"}, 0},
		{[]string{"doctor"}, 0},
		{[]string{"call", "fail"}, cli.ExitConn},
		{[]string{"render", schema, "--answers", answers}, 0},
	}
	for _, jsonOut := range []bool{false, true} {
		for _, r := range runs {
			args := append([]string{}, r.args...)
			if jsonOut {
				args = append(args, "--json")
			}
			name := strings.Join(args, " ")
			if r.args[0] != "render" {
				args = append(args, server...)
			}
			m := runMeasured(t, dir, 60*time.Second, args...)
			if m.code != r.code {
				t.Errorf("%s: exit %d, want %d\nstdout: %.3000s\nstderr: %.3000s", name, m.code, r.code, m.stdout, m.stderr)
			}
			scanRaw(t, name+": stdout", m.stdout)
			scanRaw(t, name+": stderr", m.stderr)
			if jsonOut && r.code == 0 && r.args[0] != "doctor" && !jsonValid(m.stdout) {
				t.Errorf("%s: stdout is not JSON: %.3000q", name, m.stdout)
			}
			t.Logf("%s: exit %d\nstdout: %.1500s\nstderr: %.1500s", name, m.code, m.stdout, m.stderr)
		}
	}
	noHostileLeft(t)
}

// TestTmuxHostileResultAndLog calls the tool whose result is every kind of media
// content with the payload in each one-line field, and reads the result view and the
// Log tab: nothing raw reaches the terminal, no line is the server's.
func TestTmuxHostileResultAndLog(t *testing.T) {
	t.Parallel()
	tm := hostileTerm(t, termOptions{cols: 160, rows: 50}, "payload")
	tm.WaitFor("ready")
	scanTerm(t, tm, "tools list")
	selectTool(t, tm, "media")
	tm.Keys("Enter") // no arguments: called at once
	tm.WaitFor("[image ", "[audio ", "[resource link ", "[embedded resource ")
	scanTerm(t, tm, "media result")
	tm.Keys("Escape")
	tm.Keys("Tab", "Tab", "Tab")
	tm.WaitFor("stderr line")
	scanTerm(t, tm, "Log tab")
	tm.Keys("q")
	if code, _ := tm.Wait(); code != 0 {
		t.Errorf("exit %d after q, want 0", code)
	}
}
