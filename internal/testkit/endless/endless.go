//go:build unix

// Package endless makes the files that a bounded read must refuse at once rather than
// read forever (a named pipe with no writer, a link to /dev/zero) and bounds the call
// under test in time. Only tests import it.
package endless

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// Fifo makes a named pipe at path and returns path: opening it for reading blocks
// until a writer comes, which none does.
func Fifo(t testing.TB, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Zero makes path a symbolic link to /dev/zero, a file without end, and returns path.
func Zero(t testing.TB, path string) string {
	t.Helper()
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	return path
}

// Within runs f and returns its error; it fails the test, naming what, when f has not
// returned within d.
func Within(t testing.TB, d time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s still running after %s", what, d)
		return nil
	}
}
