//go:build unix

package transport

import (
	"context"
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
