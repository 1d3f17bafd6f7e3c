//go:build unix

package desc

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/boundedfile"
)

func TestLintFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero} {
		done := make(chan error, 1)
		go func() { _, err := LintFile(path, nil); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, boundedfile.ErrNotRegular) {
				t.Errorf("LintFile(%s) = %v, want ErrNotRegular", filepath.Base(path), err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("LintFile(%s) still running after 10s", filepath.Base(path))
		}
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, 101), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := LintFile(big, &Options{MaxBytes: 100})
	if err != nil || len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Message != "the document is larger than 100 bytes" {
		t.Errorf("LintFile(big) = %+v, %v; want the size diagnostic", rep, err)
	}
}
