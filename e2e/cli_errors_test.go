package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// goWords are the words of Go's and go-sdk's layers that must never reach the user.
var goWords = []string{"rejected by transport", "context canceled", "context deadline exceeded", "use of closed network connection", `calling "`, "dial tcp", "EOF", "killed by killed"}

// startBinLogged starts the binary with args and a wire log, and returns it once the
// log shows the tools/call going out; stop collects its exit code and stderr.
func startBinLogged(t *testing.T, args ...string) (cmd *exec.Cmd, stop func() result) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "wire.jsonl")
	cmd = exec.Command(bin, append(args, "--log", logFile)...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFileHas(t, logFile, `"method":"tools/call"`)
	return cmd, func() result {
		err := cmd.Wait()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
}

// TestFailuresReadAsSentences: a call cancelled with Ctrl-C, a call whose HTTP server
// is killed under it and a call that times out each end with a sentence about the call,
// never with Go's words.
func TestFailuresReadAsSentences(t *testing.T) {
	check := func(t *testing.T, r result, code int, want string) {
		t.Helper()
		if r.code != code || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", r.code, code, want, r.stderr)
		}
		for _, w := range goWords {
			if strings.Contains(r.stderr, w) {
				t.Errorf("stderr says %q:\n%s", w, r.stderr)
			}
		}
	}
	t.Run("cancelled", func(t *testing.T) {
		cmd, stop := startBinLogged(t, "call", "demo", "slow", "steps=20", "interval_ms=1000")
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		check(t, stop(), 130, "the call was cancelled")
	})
	t.Run("server killed", func(t *testing.T) {
		mcpURL, kill := startDemoHTTPKill(t)
		_, stop := startBinLogged(t, "call", mcpURL, "slow", "steps=20", "interval_ms=1000")
		kill()
		// The server's end reads as a closed or a reset connection, as the kernel saw it.
		r := stop()
		if strings.Contains(r.stderr, "the server reset the connection") {
			check(t, r, 4, "the server reset the connection")
		} else {
			check(t, r, 4, "the server closed the connection")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		_, stop := startBinLogged(t, "call", "demo", "slow", "steps=20", "interval_ms=2000", "--timeout", "500ms")
		check(t, stop(), 4, "timed out after 500ms; allow it longer with --timeout")
	})
}

// TestUnknownToolArgumentWarns: an argument the tool's input schema does not name is
// warned about on stderr with the nearest property name.
func TestUnknownToolArgumentWarns(t *testing.T) {
	r := runBin(t, nil, "call", "demo", "deploy", "servce=api", "--on-unanswered", "decline")
	if !strings.Contains(r.stderr, `warning: tool "deploy" has no argument "servce", sent anyway; did you mean "service"?`) {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = runBin(t, nil, "call", "demo", "echo", "text=hi")
	if r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Errorf("a known argument: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
