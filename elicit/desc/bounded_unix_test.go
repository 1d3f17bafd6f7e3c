//go:build unix

package desc

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/internal/testkit/endless"
)

func TestLintFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := endless.Fifo(t, filepath.Join(dir, "fifo.json"))
	zero := endless.Zero(t, filepath.Join(dir, "zero.json"))
	for _, path := range []string{fifo, zero} {
		what := "LintFile(" + filepath.Base(path) + ")"
		err := endless.Within(t, 10*time.Second, what, func() error { _, err := LintFile(path, nil); return err })
		if !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("%s = %v, want ErrNotRegular", what, err)
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
