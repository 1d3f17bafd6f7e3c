//go:build unix

package elicit

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

// within runs f and fails the test when it has not returned within 10 s.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("still running after 10s")
		return nil
	}
}

func TestLoadScriptBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
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
		err := within(t, func() error { _, err := LoadScript(path, nil); return err })
		if !errors.Is(err, want) {
			t.Errorf("LoadScript(%s) = %v, want %v", filepath.Base(path), err, want)
		}
	}
	reply := filepath.Join(dir, "reply.txt")
	if err := syscall.Mkfifo(reply, 0o600); err != nil {
		t.Fatal(err)
	}
	err := within(t, func() error { _, err := readReply(filepath.Join(dir, "answers.yaml"), "reply.txt"); return err })
	if !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("reply file a FIFO: %v, want ErrNotRegular", err)
	}
}
