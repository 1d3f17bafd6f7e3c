//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogAndRecordRefuseSymlinks: --log and --record never write through a symbolic
// link (its target could be any file of the user's): the command stops with a usage
// error naming the path, before it connects, and the target keeps its content.
func TestLogAndRecordRefuseSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--log", "--record"} {
		r := runCLI(t, "tools", "http://127.0.0.1:9/mcp", "--no-imports", flag, link)
		if r.code != 2 || !strings.Contains(r.stderr, link) || !strings.Contains(r.stderr, "symbolic link") {
			t.Errorf("%s through a symlink: exit %d, stderr %q; want exit 2 naming the link", flag, r.code, r.stderr)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep me" {
		t.Errorf("the link's target holds %q (%v)", b, err)
	}
}

// TestLogRepairsMode: an existing --log file that others may read is made 0600, with
// a warning on stderr.
func TestLogRepairsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wire.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "tools", "http://127.0.0.1:9/mcp", "--no-imports", "--log", path)
	if !strings.Contains(r.stderr, "warning: "+path+" had mode 0644") {
		t.Errorf("stderr %q, want a warning about the mode", r.stderr)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after the run: %v %v, want 0600", fi.Mode().Perm(), err)
	}
}
