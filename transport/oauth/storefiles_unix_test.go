//go:build unix

package oauth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/testkit/endless"
	"github.com/elicitty/elicitty/transport/oauth"
)

// TestStoreRefusesSymlinkAndSpecialFiles: a symbolic link, a FIFO or a device at the
// token path is refused by name, at once: never followed (the link's target keeps its
// content and mode), never waited on.
func TestStoreRefusesSymlinkAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte(`{"version":1,"entries":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := endless.Fifo(t, filepath.Join(dir, "fifo.json"))
	dev := endless.Zero(t, filepath.Join(dir, "zero.json"))
	tests := []struct{ path, want string }{
		{link, "symbolic link"},
		{fifo, "named pipe"},
		{dev, "symbolic link"},
	}
	for _, tt := range tests {
		s := oauth.NewFileStore(tt.path, &oauth.StoreOptions{Warn: func(m string) { t.Errorf("warned %q", m) }})
		done := make(chan error, 2)
		go func() {
			_, _, err := s.Load("a", "r")
			done <- err
			done <- s.Save(oauth.Entry{Server: "a", Resource: "r", AccessToken: "tok"})
		}()
		for _, op := range []string{"Load", "Save"} {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
					t.Errorf("%s at %s = %v, want a refusal naming it as %s", op, tt.path, err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s at %s hangs", op, tt.path)
			}
		}
	}
	fi, err := os.Stat(target)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target changed mode: %v %v", fi, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
}

// TestStoreDirectoryMode: a token directory other users may write to is refused (they
// could replace the token file); one they may only list is made 0700, with a warning.
func TestStoreDirectoryMode(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	s := oauth.NewStore(filepath.Join(open, "oauth-tokens.json"))
	if err := s.Save(oauth.Entry{Server: "a", Resource: "r", AccessToken: "tok"}); err == nil || !strings.Contains(err.Error(), open) || !strings.Contains(err.Error(), "0777") {
		t.Errorf("Save in a 0777 directory = %v, want a refusal naming it and its mode", err)
	}
	if _, err := os.Stat(filepath.Join(open, "oauth-tokens.json")); !os.IsNotExist(err) {
		t.Errorf("a token file was written into the 0777 directory (%v)", err)
	}

	listed := filepath.Join(t.TempDir(), "listed")
	if err := os.Mkdir(listed, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(listed, 0o755); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	s = oauth.NewFileStore(filepath.Join(listed, "oauth-tokens.json"), &oauth.StoreOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	if err := s.Save(oauth.Entry{Server: "a", Resource: "r", AccessToken: "tok"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(listed)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode after Save: %v %v, want 0700", fi.Mode().Perm(), err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], listed) || !strings.Contains(warnings[0], "0755") {
		t.Errorf("warnings = %q, want one naming the directory and mode 0755", warnings)
	}
}
