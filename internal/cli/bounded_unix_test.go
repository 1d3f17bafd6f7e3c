//go:build unix

package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/boundedfile"
)

// TestSchemaFileBounded: render's schema file that is a FIFO or a link to /dev/zero is
// refused at once, not read forever.
func TestSchemaFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "schema.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	a := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	for _, read := range []func() error{
		func() error { _, _, err := a.readRenderInput(fifo); return err },
		func() error { _, _, err := a.readRenderInput(zero); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			if !errors.Is(err, boundedfile.ErrNotRegular) {
				t.Errorf("got %v, want ErrNotRegular", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("still reading after 10s")
		}
	}
}
