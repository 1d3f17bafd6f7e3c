//go:build unix

package transport

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/transport/wire"
)

// TestCloseStopsWhatTheServerStarted: a server launched through a wrapper that leaves a
// child behind (as npx and shell scripts do) takes that child with it on Close.
func TestCloseStopsWhatTheServerStarted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	srv := stdioServer(t, "serve")
	srv.Command = "sh"
	srv.Args = []string{"-c", `sleep 300 & echo $! > "$1"; exec "$2" -test.run='^$'`, "sh", pidFile, os.Args[0]}
	s, err := Connect(context.Background(), srv, Options{Protocol: legacy, Log: wire.New(100)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the wrapper's child %d is not running before Close: %v", pid, err)
	}
	s.Close()
	// The child is not ours to wait for; its death is visible only by polling.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the wrapper's child %d outlived Close", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCloseKillsWhatIgnoresSIGTERM: a server that exits when its stdin closes but left
// a child behind that ignores SIGTERM (a shell wrapper's background job) does not leave
// that child running: once the grace after SIGTERM has passed, the whole process group
// gets SIGKILL, though the server itself is long gone. Close returns with it gone.
func TestCloseKillsWhatIgnoresSIGTERM(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	srv := stdioServer(t, "serve")
	srv.Command = "sh"
	srv.Args = []string{"-c", `(trap '' TERM; exec sleep 300 </dev/null >/dev/null 2>&1) & echo $! > "$1"; exec "$2" -test.run='^$'`,
		"sh", pidFile, os.Args[0]}
	log := wire.New(100)
	s, err := Connect(context.Background(), srv, Options{Protocol: legacy, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the wrapper's child %d is not running before Close: %v", pid, err)
	}
	s.Close()
	if running(pid) {
		t.Fatalf("the wrapper's child %d, which ignores SIGTERM, outlived Close", pid)
	}
	if n := len(findEntries(log, func(e wire.Entry) bool { return strings.Contains(e.Text, "got SIGKILL") })); n != 1 {
		t.Errorf("%d notes say what was left behind got SIGKILL, want 1", n)
	}
}

// running reports whether pid is a process that has not ended: one that exists and,
// where /proc tells, is no zombie waiting for its new parent (init) to reap it.
func running(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	// "pid (comm) S ...": the state follows the last ')'.
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	return !strings.HasPrefix(strings.TrimSpace(string(rest)), "Z")
}
