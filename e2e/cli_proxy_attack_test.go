package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/testkit"
)

// TestProxyHostileServer: a stdio server that writes log lines and terminal escapes on
// stdout and stderr and never reads its stdin. The host gets JSON-RPC only, the log no
// control characters, and the host closing its input (with a message the server never
// took still being written) ends the proxy and the server.
func TestProxyHostileServer(t *testing.T) {
	server := `printf '\033]0;pwned\007\033[2Jevil stderr\n' >&2
head -c 20000 /dev/zero | tr '\0' L >&2; echo >&2
printf '[INFO] starting\n\033[31mbanner\n'
printf '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
exec sleep 300`
	h := startHost(t, nil, bin, "proxy", "--", "sh", "-c", server)
	select {
	case l, ok := <-h.lines:
		if !ok || !strings.Contains(string(l), "list_changed") {
			t.Fatalf("host got %q first\nstderr:\n%s", l, h.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the server's notification did not arrive\nstderr:\n%s", h.stderr)
	}
	h.send(hostInit)
	// More than a pipe holds: the proxy's write to the server blocks for good.
	h.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"` + strings.Repeat("x", 512<<10) + `"}}`)
	start := time.Now()
	if code := h.close(); code != 0 {
		t.Errorf("exit %d\nstderr:\n%s", code, h.stderr)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the proxy took %s to end", d)
	}
	for _, l := range bytes.Split(bytes.TrimSuffix(h.received(), []byte("\n")), []byte("\n")) {
		if !json.Valid(l) || l[0] != '{' {
			t.Errorf("host stdout carries %q", l)
		}
	}
	if s := h.stderr.String(); strings.ContainsAny(s, "\x1b\x07") || !strings.Contains(s, "evil stderr") || !strings.Contains(s, "LLLL") {
		t.Errorf("stderr:\n%.4000q", s)
	}
	for _, l := range strings.Split(h.stderr.String(), "\n") {
		if len(l) > 2100 {
			t.Errorf("stderr line of %d bytes", len(l))
		}
	}
}

// TestProxyHostStdoutGone: the host stops reading (its end of the proxy's stdout
// closed, as when it crashes) while the server keeps writing. The proxy is not killed
// by SIGPIPE on the way: it goes on until its input ends, then stops the server and
// what it started.
func TestProxyHostStdoutGone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGPIPE is a unix signal")
	}
	mark := fmt.Sprintf("ELICITTY_PROXY_TEST_MARK=%s-%d", t.Name(), time.Now().UnixNano())
	server := `sleep 300 &
while :; do printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick"}}\n'; sleep 0.1; done`
	cmd := exec.Command(bin, "proxy", "--", "sh", "-c", server)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), mark)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testkit.LockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		for _, p := range marked(mark) { // what a killed proxy left behind
			if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
				if proc, err := os.FindProcess(pid); err == nil {
					_ = proc.Kill()
				}
			}
		}
	})
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("no first message: %v\nstderr:\n%s", err, stderr.String())
	}
	out.Close()
	select {
	case <-exited:
		t.Fatalf("the proxy died when the host stopped reading: %v\nstderr:\n%s", cmd.ProcessState, stderr.String())
	case <-time.After(time.Second):
	}
	in.Close()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the proxy did not end with its input\nstderr:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d (%v)\nstderr:\n%s", code, cmd.ProcessState, stderr.String())
	}
	deadline := time.Now().Add(3 * time.Second)
	for left := marked(mark); len(left) > 0; left = marked(mark) {
		if time.Now().After(deadline) {
			t.Fatalf("processes still running after the run: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
