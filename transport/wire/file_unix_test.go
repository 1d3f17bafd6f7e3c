//go:build unix

package wire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/endless"
)

func TestOpenFileNewIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wire.jsonl")
	f, warning, err := OpenFile(path, os.O_TRUNC)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if warning != "" {
		t.Errorf("warning %q for a new file", warning)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("created with mode %04o, want no access for others", perm)
	}
}

func TestOpenFileRepairsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wire.jsonl")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	f, warning, err := OpenFile(path, os.O_TRUNC)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !strings.Contains(warning, "0644") || !strings.Contains(warning, "now 0600") || !strings.Contains(warning, path) {
		t.Errorf("warning = %q, want the path, the old mode and the repair", warning)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode %04o after OpenFile, want 0600", perm)
	}
}

func TestOpenFileRefusesSymlinkAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := endless.Fifo(t, filepath.Join(dir, "fifo.jsonl"))
	tests := []struct{ path, want string }{
		{link, "symbolic link"},
		{fifo, "named pipe"},
		{"/dev/null", "device"},
		{dir, "directory"},
	}
	for _, tt := range tests {
		f, _, err := OpenFile(tt.path, os.O_TRUNC)
		if err == nil {
			f.Close()
			t.Errorf("OpenFile(%s) succeeded", tt.path)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("OpenFile(%s) = %v, want it named as %s", tt.path, err, tt.want)
		}
	}
	b, err := os.ReadFile(target)
	if err != nil || string(b) != "keep me" {
		t.Errorf("the link's target now holds %q (%v)", b, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target's mode changed: %v %v", fi.Mode(), err)
	}
}
