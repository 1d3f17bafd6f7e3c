//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// stubbornConfig writes a config of n stubborn servers of mode and returns its path and
// the directory where they write their pids.
func stubbornConfig(t *testing.T, n int, mode string, extra ...string) (cfg, pids string) {
	t.Helper()
	dir := t.TempDir()
	pids = filepath.Join(dir, "pids")
	if err := os.Mkdir(pids, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("servers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  s%02d:\n    command: %s\n    env:\n      %s: %s\n      %s: %s\n",
			i, strconv.Quote(os.Args[0]), stubbornEnv, mode, stubbornDirEnv, strconv.Quote(pids))
		for _, kv := range extra {
			fmt.Fprintf(&b, "    %s\n", kv)
		}
	}
	cfg = filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killStubborn(pids) })
	return cfg, pids
}

// stubbornPids returns the pids of the stubborn servers that started.
func stubbornPids(t *testing.T, dir string) []int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether pid runs (a zombie, dead but not yet reaped by init, is not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// killStubborn kills what a failed test left behind.
func killStubborn(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// waitStarted waits until n stubborn servers wrote their pid.
func waitStarted(t *testing.T, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(stubbornPids(t, dir)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d servers started", len(stubbornPids(t, dir)), n)
		}
		time.Sleep(20 * time.Millisecond) // a pid file has no event to wait on
	}
}

// requireNoneLeft fails if a stubborn server outlived elicitty. The servers' deaths
// are polled briefly: the kernel's parent-death signal is asynchronous.
func requireNoneLeft(t *testing.T, dir string, want int) {
	t.Helper()
	requireNoneLeftWithin(t, dir, want, 2*time.Second)
}

// requireNoneLeftWithin fails if a stubborn server is still running after d.
func requireNoneLeftWithin(t *testing.T, dir string, want int, d time.Duration) {
	t.Helper()
	pids := stubbornPids(t, dir)
	if len(pids) < want {
		t.Fatalf("only %d of %d servers started", len(pids), want)
	}
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d server processes outlived elicitty: %v", len(left), len(pids), left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startHeadless starts `elicitty args...` without a terminal and returns the command
// and a channel that delivers its exit code.
func startHeadless(t *testing.T, args ...string) (*exec.Cmd, <-chan int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	waited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		done <- cmd.ProcessState.ExitCode()
		close(waited)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-waited })
	return cmd, done
}

// waitExitCode waits for the run to end within d.
func waitExitCode(t *testing.T, done <-chan int, d time.Duration) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(d):
		t.Fatalf("elicitty did not exit within %s", d)
		return 0
	}
}

// TestNoServerOutlivesHeadless ends a headless command each way it can end while its
// server ignores stdin EOF and SIGTERM, and finds no server process left.
func TestNoServerOutlivesHeadless(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		sig        os.Signal // nil: the run ends by itself
		wantCode   int
		within     time.Duration
	}{
		{"SIGINT while connecting", "silent", syscall.SIGINT, cli.ExitCancel, 3 * time.Second},
		{"SIGTERM while connecting", "silent", syscall.SIGTERM, cli.ExitCancel, 3 * time.Second},
		{"SIGHUP while connecting", "silent", syscall.SIGHUP, cli.ExitCancel, 3 * time.Second},
		{"SIGINT when ready", "demo", syscall.SIGINT, cli.ExitCancel, 3 * time.Second},
		{"handshake error", "badinit", nil, cli.ExitConn, 15 * time.Second},
		{"normal end", "demo", nil, cli.ExitOK, 15 * time.Second},
		// A crash runs no cleanup at all: the kernel's parent-death signal stops the server.
		{"SIGKILL (a crash)", "silent", syscall.SIGKILL, -1, 3 * time.Second},
		{"SIGQUIT (a runtime crash)", "silent", syscall.SIGQUIT, 2, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, pids := stubbornConfig(t, 1, tc.mode)
			logFile := filepath.Join(t.TempDir(), "wire.jsonl")
			args := []string{"--config", cfg, "--no-imports", "--log", logFile, "tools", "s00"}
			inCall := tc.mode == "demo" && tc.sig != nil
			if inCall {
				// Interrupt a call in flight: the demo's slow tool takes 40 s.
				args = []string{"--config", cfg, "--no-imports", "--log", logFile, "call", "s00", "slow", "steps=20", "interval_ms=2000"}
			}
			cmd, done := startHeadless(t, args...)
			waitStarted(t, pids, 1)
			if inCall {
				waitFileHas(t, logFile, `"tools/call"`)
			}
			if tc.sig != nil {
				if err := cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			}
			if code := waitExitCode(t, done, tc.within); code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
			requireNoneLeft(t, pids, 1)
			if tc.sig != syscall.SIGKILL && tc.sig != syscall.SIGQUIT {
				// The log says the server was stopped.
				waitFileHas(t, logFile, "server process stopped: SIGKILL")
			}
		})
	}
}

// waitFileHas waits until the file contains want.
func waitFileHas(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never contained %q; it has:\n%s", filepath.Base(path), want, b)
		}
		time.Sleep(20 * time.Millisecond) // a file has no event to wait on
	}
}

// TestNoServerOutlivesTUI quits the terminal UI while 30 servers that ignore stdin
// EOF and SIGTERM are still connecting, with q and with Ctrl+C, and finds no server
// process left and the UI gone within the exit deadline.
func TestNoServerOutlivesTUI(t *testing.T) {
	for _, key := range []string{"q", "C-c"} {
		t.Run(key, func(t *testing.T) {
			const n = 30
			cfg, pids := stubbornConfig(t, n, "silent")
			tm := startTerm(t, tmuxterm.Options{}, "--config", cfg, "--no-imports")
			waitStarted(t, pids, n)
			// The servers pane at 80x24 scrolls: 30 servers do not fit.
			tm.WaitFor("s00", "starting…", "↓ ", " more")
			start := time.Now()
			tm.Keys(key)
			code, _ := tm.Wait()
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("elicitty took %s to exit after %s", took.Round(time.Millisecond), key)
			}
			if code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
			requireNoneLeft(t, pids, n)
		})
	}
	t.Run("terminal closed", func(t *testing.T) {
		cfg, pids := stubbornConfig(t, 3, "demo")
		tm := startTerm(t, tmuxterm.Options{}, "--config", cfg, "--no-imports")
		tm.WaitFor("s00", "s02", "ready")
		waitStarted(t, pids, 3)
		// Killing the tmux server closes the terminal: elicitty gets SIGHUP.
		tm.Tmux("kill-server")
		requireNoneLeftWithin(t, pids, 3, 3*time.Second)
	})
}

// TestTUIQuitWithCallInFlight quits the UI while a call waits on an open form: the
// server is told (the form's cancel, then the call's notifications/cancelled unless
// the call already ended), no server process is left, and elicitty is gone within the
// deadline although the server ignores stdin EOF and SIGTERM.
func TestTUIQuitWithCallInFlight(t *testing.T) {
	cfg, pids := stubbornConfig(t, 1, "demo")
	logFile := filepath.Join(t.TempDir(), "wire.jsonl")
	tm := startTerm(t, tmuxterm.Options{}, "--config", cfg, "--no-imports", "--protocol", "2025-11-25", "--log", logFile)
	tm.WaitFor("s00", "ready", "form_all_kinds")
	selectTool(t, tm, "form_all_kinds")
	tm.Keys("Enter") // read-only: it runs at once
	tm.WaitFocus("Full name *")
	tm.Keys("C-b") // set the form aside
	tm.WaitFor("set aside")
	tm.Keys("q") // a request is pending: q asks first
	tm.WaitFor("quit and cancel 1 pending request(s), 1 call(s) in flight?")
	start := time.Now()
	tm.Keys("y")
	code, _ := tm.Wait()
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("elicitty took %s to exit after q", took.Round(time.Millisecond))
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	requireNoneLeft(t, pids, 1)
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	// The form's cancel is written first; the call is then either cancelled
	// (notifications/cancelled) or has already ended on the server's side, as the
	// demo ends it once its form is cancelled.
	var cancelled, formCancel, callEnded bool
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"dir":"in"`) && strings.Contains(line, `"method":"tools/call"`) {
			callEnded = true
		}
		if !strings.Contains(line, `"dir":"out"`) {
			continue
		}
		cancelled = cancelled || strings.Contains(line, `"method":"notifications/cancelled"`)
		formCancel = formCancel || strings.Contains(line, `"action":"cancel"`)
	}
	if !formCancel || !(cancelled || callEnded) {
		t.Errorf("the server was not told: form answered cancel %v, notifications/cancelled sent %v, call ended %v; log:\n%s", formCancel, cancelled, callEnded, wireSummary(b))
	}
}

// wireSummary is a wire log (--log) one short line per entry, so that a failure shows
// it whole: sequence, direction, method and id, the note's text or the raw message's
// first bytes.
func wireSummary(b []byte) string {
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Seq             int
			Dir, Method, ID string
			Text            string
			Raw             json.RawMessage
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			fmt.Fprintf(&out, "%.120s\n", line)
			continue
		}
		what := e.Text
		if what == "" {
			what = string(e.Raw)
		}
		fmt.Fprintf(&out, "%d %s %s %s %.100s\n", e.Seq, e.Dir, e.Method, e.ID, what)
	}
	return out.String()
}

// TestTUIRestartResendsLostRequest: a 2026-07-28 server with restart: on-failure
// crashes on purpose under a call; elicitty restarts it on its own, re-sends the lost
// request, says which, and the call completes.
func TestTUIRestartResendsLostRequest(t *testing.T) {
	cfg, pids := stubbornConfig(t, 1, "crash-once", "restart: on-failure", "maxRestarts: 2")
	tm := startTerm(t, tmuxterm.Options{}, "--config", cfg, "--no-imports", "--protocol", "2026-07-28")
	tm.WaitFor("s00", "ready 2026-07-28", "add")
	selectTool(t, tm, "slow")
	tm.Keys("Enter")
	tm.WaitFor(`Arguments for tool slow`)
	tm.WaitFocus("steps") // the schema's order
	tm.Keys("Enter")      // the defaults: 3 steps of 100 ms
	tm.WaitFocus("interval_ms")
	tm.Keys("Enter")
	tm.WaitFor("[ Call ]")
	tm.Keys("a")
	// The re-sent call completes; the lost one says what happened to it.
	tm.WaitFor("Result 2/2", "tools/call slow · done", "finished 3 steps")
	tm.Keys("[")
	tm.WaitFor("Result 1/2", "lost in the server's crash; it will be sent again", "crashing on purpose")
	if _, err := os.Stat(filepath.Join(pids, "crashed")); err != nil {
		t.Fatalf("the server never crashed: %v", err)
	}
	if n := len(stubbornPids(t, pids)); n != 2 {
		t.Errorf("%d server processes started, want 2 (the first, the restart)", n)
	}
	tm.Keys("q")
	tm.Wait()
	requireNoneLeft(t, pids, 2)
}
