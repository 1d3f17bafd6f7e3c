//go:build unix

package process

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/transport/wire"
)

// TestShutdownStopsWhatTheServerStarted: a server launched through a wrapper that
// leaves a child behind (as npx and shell scripts do) takes that child with it on
// Shutdown (a session's Close).
func TestShutdownStopsWhatTheServerStarted(t *testing.T) {
	p, stdout := startScript(t, wire.New(100), `sleep 300 & echo $!; read x`)
	pid := childPID(t, stdout)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the wrapper's child %d is not running before Shutdown: %v", pid, err)
	}
	p.Shutdown(context.Background())
	// The child is not ours to wait for; its death is visible only by polling.
	deadline := time.Now().Add(5 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the wrapper's child %d outlived Shutdown", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStopKillsWhatIgnoresSIGTERM: a server that exits when its stdin closes but left
// a child behind that ignores SIGTERM (a shell wrapper's background job) does not leave
// that child running: once the grace after SIGTERM has passed, the whole process group
// gets SIGKILL, though the server itself is long gone. Stop returns with it gone.
func TestStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	log := wire.New(100)
	p, stdout := startScript(t, log, `(trap '' TERM; exec sleep 300 </dev/null >/dev/null 2>&1) & echo $!; read x`)
	pid := childPID(t, stdout)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the wrapper's child %d is not running before Stop: %v", pid, err)
	}
	if !p.Stop(200 * time.Millisecond) {
		t.Error("Stop says no SIGKILL was needed")
	}
	if running(pid) {
		t.Fatalf("the wrapper's child %d, which ignores SIGTERM, outlived Stop", pid)
	}
	n := 0
	for _, e := range log.Snapshot() {
		if strings.Contains(e.Text, "got SIGKILL") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d notes say what was left behind got SIGKILL, want 1", n)
	}
}

// childPID reads the pid a wrapper script printed first on its stdout.
func childPID(t *testing.T, stdout <-chan string) int {
	t.Helper()
	select {
	case line := <-stdout:
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("the wrapper printed %q, not a pid", line)
		}
		return pid
	case <-time.After(10 * time.Second):
		t.Fatal("the wrapper printed no pid within 10s")
	}
	return 0
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
