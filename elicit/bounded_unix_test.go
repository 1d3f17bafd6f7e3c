//go:build unix

package elicit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/internal/testkit/endless"
)

func TestLoadScriptBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := endless.Fifo(t, filepath.Join(dir, "fifo.yaml"))
	zero := endless.Zero(t, filepath.Join(dir, "zero.yaml"))
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("- {}\n"+strings.Repeat("#", MaxAnswersFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(dir, "deep.yaml")
	if err := os.WriteFile(deep, []byte("- answer: "+strings.Repeat("[", 3<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]error{
		fifo: boundedfile.ErrNotRegular, zero: boundedfile.ErrNotRegular,
		big: boundedfile.ErrTooLarge, deep: boundedfile.ErrTooDeep,
	} {
		err := endless.Within(t, 10*time.Second, "LoadScript("+filepath.Base(path)+")", func() error { _, err := LoadScript(path, nil); return err })
		if !errors.Is(err, want) {
			t.Errorf("LoadScript(%s) = %v, want %v", filepath.Base(path), err, want)
		}
	}
	endless.Fifo(t, filepath.Join(dir, "reply.txt"))
	err := endless.Within(t, 10*time.Second, "readReply", func() error { _, err := readReply(filepath.Join(dir, "answers.yaml"), "reply.txt"); return err })
	if !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("reply file a FIFO: %v, want ErrNotRegular", err)
	}
}
