//go:build unix

package cli

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/internal/testkit/endless"
)

// TestSchemaFileBounded: render's schema file that is a FIFO or a link to /dev/zero is
// refused at once, not read forever.
func TestSchemaFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := endless.Fifo(t, filepath.Join(dir, "schema.json"))
	zero := endless.Zero(t, filepath.Join(dir, "zero.json"))
	a := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	for _, path := range []string{fifo, zero} {
		err := endless.Within(t, 10*time.Second, "reading "+filepath.Base(path), func() error { _, _, err := a.readRenderInput(path); return err })
		if !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("%s: got %v, want ErrNotRegular", filepath.Base(path), err)
		}
	}
}
