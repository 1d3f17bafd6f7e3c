package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/cli"
)

// File inputs (SEP-2356, draft) against the demo's upload_file, headless: the answers
// file names the file relative to itself, --record writes the path, and nothing of it
// happens without --experimental file-inputs.
func TestFileInputsAnswersFile(t *testing.T) {
	dir := t.TempDir()
	data := []byte("elicitty file input\n")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("- match: {tool: upload_file}\n  action: accept\n  content:\n    file: {file: notes.txt}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "rec.yaml")
			r := runBin(t, nil, "call", "upload_file", "--experimental", "file-inputs", "--protocol", era,
				"--answers", answers, "--record", rec, "--json", "--", bin, "serve-demo")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var out callOutput
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("%v: %s", err, r.stdout)
			}
			got := out.Result.StructuredContent
			if got["name"] != "notes.txt" || got["type"] != "text/plain" || got["size"] != float64(len(data)) || got["sha256"] != hex.EncodeToString(sum[:]) {
				t.Errorf("the server received %v", got)
			}
			if !strings.Contains(r.stderr, "file notes.txt (text/plain, 20 B)") {
				t.Errorf("stderr does not say which file went: %s", r.stderr)
			}
			b, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			if s := string(b); !strings.Contains(s, "file: "+filepath.Join(dir, "notes.txt")) || strings.Contains(s, "base64") {
				t.Errorf("--record wrote:\n%s", s)
			}
		})
	}
	t.Run("a file argument", func(t *testing.T) {
		r := runBinIn(t, dir, nil, "call", "upload_file", "file=@notes.txt", "--experimental", "file-inputs", "--json", "--", bin, "serve-demo")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var out callOutput
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v: %s", err, r.stdout)
		}
		if got := out.Result.StructuredContent; got["sha256"] != hex.EncodeToString(sum[:]) || got["name"] != "notes.txt" {
			t.Errorf("the server received %v", got)
		}
		if !strings.Contains(r.stderr, "argument file: file notes.txt (text/plain, 20 B)") {
			t.Errorf("stderr: %s", r.stderr)
		}
		// Without the flag the argument is the text typed.
		r = runBinIn(t, dir, nil, "call", "upload_file", "file=@notes.txt", "--json", "--", bin, "serve-demo")
		if strings.Contains(r.stdout, hex.EncodeToString(sum[:])) {
			t.Errorf("a file went without the flag: %s", r.stdout)
		}
	})
	t.Run("without the flag", func(t *testing.T) {
		r := runBin(t, nil, "call", "upload_file", "--answers", answers, "--json", "--", bin, "serve-demo")
		if r.code == 0 || strings.Contains(r.stdout, "sha256") {
			t.Errorf("exit %d, stdout %s: a file went without --experimental file-inputs", r.code, r.stdout)
		}
	})
	t.Run("a directory is refused by name", func(t *testing.T) {
		bad := filepath.Join(dir, "dir.yaml")
		if err := os.WriteFile(bad, []byte("- action: accept\n  content:\n    file: {file: .}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runBin(t, nil, "call", "upload_file", "--experimental", "file-inputs", "--answers", bad, "--", bin, "serve-demo")
		if r.code == 0 || !strings.Contains(r.stderr, "is a directory") {
			t.Errorf("exit %d, stderr %s", r.code, r.stderr)
		}
	})
	t.Run("unknown feature", func(t *testing.T) {
		r := runBin(t, nil, "tools", "demo", "--experimental", "telepathy")
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--experimental must be one of file-inputs") {
			t.Errorf("exit %d, stderr %s", r.code, r.stderr)
		}
	})
}
