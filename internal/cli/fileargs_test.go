package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/elicit"
)

// render previews a form request with a file field: with --experimental file-inputs
// the answers file's file: PATH is read and sent as a data URI; without it the field is
// a uri string and the findings say how to turn file inputs on.
func TestRenderFileField(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("a.txt", "abc")
	params := write("params.json", `{"message":"Pick","requestedSchema":{"type":"object","properties":{"doc":{"type":"string","format":"uri","x-mcp-file":{"accept":["text/*"]}}},"required":["doc"]}}`)
	answers := write("answers.yaml", "- action: accept\n  content:\n    doc: {file: a.txt}\n")
	cfg := write("config.yaml", "servers: {}\n")
	r := runCLI(t, "render", params, "--experimental", "file-inputs", "--answers", answers, "--no-imports", "--config", cfg)
	if want := elicit.DataURI("text/plain", "a.txt", []byte("abc")); r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant %s", r.code, r.stdout, r.stderr, want)
	}
	r = runCLI(t, "render", params, "--answers", answers, "--no-imports", "--config", cfg)
	if r.code == 0 || !strings.Contains(r.stderr, "without --experimental file-inputs it is answered as text") {
		t.Errorf("without the flag: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}
