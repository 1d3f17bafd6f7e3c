// Package tmuxterm drives a program in a real terminal for tests: a detached tmux session
// of a private tmux server, typed into with send-keys and read with capture-pane. Any
// package's tests can use it; the end-to-end tier (e2e/) drives the elicitty binary with
// it.
package tmuxterm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Bounds of a poll of the screen. A real terminal has no event to wait on, so the
// tests read the screen until it shows what they expect.
const (
	Poll     = 20 * time.Millisecond
	Deadline = 15 * time.Second
)

// Term is one command running in a real terminal: a detached 80x24 session
// of a tmux server of its own (private socket), driven with send-keys and read with
// capture-pane. The server is killed when the test ends.
type Term struct {
	t      testing.TB
	socket string // the -L name of this test's tmux server
	dir    string // the command's files: run.sh, stdout, exit
}

// Options says how to run the command in the terminal.
type Options struct {
	// Env is added to the command's environment (KEY=VALUE).
	Env []string
	// StdoutToFile redirects the command's stdout to a file (read with Wait), leaving
	// stdin and stderr on the terminal, as for `elicitty call ... > out.json`.
	StdoutToFile bool
	// RawOutput copies every byte the command writes to the terminal to the file
	// "output" (tmux pipe-pane); the command starts once the copy runs. Read it with
	// RawOutput.
	RawOutput bool
	// Cols and Rows size the terminal; zero means 80x24.
	Cols, Rows int
	// WorkDir, when set, is the command's working directory (a project folder, say);
	// otherwise it runs in the test's own directory. Its files (stdout, exit) stay
	// in the test's directory.
	WorkDir string
}

// Require skips the test without tmux, except on CI (CI set), where
// scripts/setup.sh installs it and its absence is a failure.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing: scripts/setup.sh installs it")
		}
		t.Skip("tmux not installed")
	}
}

// unsafeSocketChars are the characters a test name may not bring into a socket name.
var unsafeSocketChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// Start runs the program bin with args in a fresh tmux server, with NO_COLOR set and a
// private HOME, XDG_CONFIG_HOME and ELICITTY_RUNTIME_DIR so no user config or running
// proxy leaks in. The server is killed when the test ends.
func Start(t testing.TB, bin string, opts Options, args ...string) *Term {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	tm := &Term{
		t:      t,
		socket: fmt.Sprintf("elicitty-%d-%s", os.Getpid(), unsafeSocketChars.ReplaceAllString(t.Name(), "_")),
		dir:    dir,
	}

	var sh strings.Builder
	// A private inbox directory: the TUI attaches to no proxy but the test's own.
	env := append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "NO_COLOR=1",
		"ELICITTY_RUNTIME_DIR=" + filepath.Join(home, "run")}, opts.Env...)
	for _, kv := range env {
		fmt.Fprintf(&sh, "export %s\n", ShellQuote(kv))
	}
	fmt.Fprintf(&sh, "cd %s\n", ShellQuote(dir))
	if opts.RawOutput {
		// Start only once pipe-pane copies the output (Start creates "piping").
		sh.WriteString("i=0; while [ ! -e piping ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done\n")
	}
	if opts.WorkDir != "" {
		fmt.Fprintf(&sh, "(cd %s && ", ShellQuote(opts.WorkDir))
	}
	sh.WriteString(ShellQuote(bin))
	for _, a := range args {
		sh.WriteString(" " + ShellQuote(a))
	}
	if opts.StdoutToFile {
		sh.WriteString(" > " + ShellQuote(filepath.Join(dir, "stdout")))
	}
	if opts.WorkDir != "" {
		sh.WriteString(")")
	}
	// The exit status is written last, and atomically, so that a reader seeing the
	// file sees stdout complete. Then the shell stays, so that the last screen stays
	// as the command left it (tmux's remain-on-exit scrolls it); the tmux server is
	// killed at cleanup, and the sleep bounds an orphan's life.
	sh.WriteString("\necho $? > exit.tmp && mv exit.tmp exit\nexec sleep 600\n")
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte(sh.String()), 0o755); err != nil {
		t.Fatal(err)
	}

	cols, rows := 80, 24
	if opts.Cols > 0 && opts.Rows > 0 {
		cols, rows = opts.Cols, opts.Rows
	}
	tm.Tmux("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "sh", script)
	socketPath := strings.TrimSpace(tm.Tmux("display-message", "-p", "#{socket_path}"))
	if opts.RawOutput {
		tm.Tmux("pipe-pane", "-t", "e2e", "-o", "cat >> "+ShellQuote(filepath.Join(dir, "output")))
		if err := os.WriteFile(filepath.Join(dir, "piping"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-L", tm.socket, "kill-server")
		cmd.Env = tmuxEnv()
		_ = cmd.Run()
		// tmux leaves its socket file behind.
		_ = os.Remove(socketPath)
	})
	return tm
}

// tmuxEnv is the environment of the tmux client: ours without the variables that
// would tie it to a tmux the tests may be running in.
func tmuxEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			env = append(env, kv)
		}
	}
	return env
}

// ShellQuote quotes s for sh.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (tm *Term) Tmux(args ...string) string {
	tm.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...)
	cmd.Env = tmuxEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// T is the test the terminal belongs to, for helpers that drive it (t.Helper()).
func (tm *Term) T() testing.TB { return tm.t }

// Dir is the folder the command runs in, which holds its files (run.sh, stdout, exit).
func (tm *Term) Dir() string { return tm.dir }

// Screen is the visible text of the terminal.
func (tm *Term) Screen() string { return tm.Tmux("capture-pane", "-p", "-t", "e2e") }

// RawScreen is the visible text with its attributes as escape sequences (bold is
// "\x1b[1m", reverse video "\x1b[7m"): with NO_COLOR, attributes are all that mark a
// choice.
func (tm *Term) RawScreen() string { return tm.Tmux("capture-pane", "-p", "-e", "-t", "e2e") }

// Keys sends tmux key names (Enter, Down, C-x, Escape, ...).
func (tm *Term) Keys(k ...string) {
	tm.t.Helper()
	tm.Tmux(append([]string{"send-keys", "-t", "e2e"}, k...)...)
}

// TypeText sends s literally, as typed.
func (tm *Term) TypeText(s string) {
	tm.t.Helper()
	tm.Tmux("send-keys", "-t", "e2e", "-l", s)
}

// WaitUntil polls the screen (raw when raw is set) until ok accepts it and returns
// that screen; after Deadline it fails the test with what the screen last showed.
func (tm *Term) WaitUntil(what string, raw bool, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(Deadline)
	for {
		s := tm.Screen()
		if raw {
			s = tm.RawScreen()
		}
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %s; last screen:\n%s\n%s", what, tm.Screen(), tm.Files())
		}
		time.Sleep(Poll) // a terminal has no event to wait on: poll its screen
	}
}

// WaitFor waits until the screen contains every one of want and returns it.
func (tm *Term) WaitFor(want ...string) string {
	tm.t.Helper()
	return tm.WaitUntil(fmt.Sprintf("%q", want), false, func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// WaitRaw waits until the screen with its attributes contains want.
func (tm *Term) WaitRaw(want string) string {
	tm.t.Helper()
	return tm.WaitUntil(fmt.Sprintf("%q (with attributes)", want), true, func(s string) bool {
		return strings.Contains(s, want)
	})
}

// WaitFocus waits until the huh field titled title has the focus (its lines carry
// the focus bar) and returns the screen.
func (tm *Term) WaitFocus(title string) string {
	tm.t.Helper()
	return tm.WaitFor("┃ " + title)
}

// Wait waits for the command to exit and returns its exit code and stdout (when
// redirected to a file).
func (tm *Term) Wait() (code int, stdout string) {
	tm.t.Helper()
	deadline := time.Now().Add(Deadline)
	for {
		b, err := os.ReadFile(filepath.Join(tm.dir, "exit"))
		if err == nil {
			code, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				tm.t.Fatalf("exit file: %v", err)
			}
			out, _ := os.ReadFile(filepath.Join(tm.dir, "stdout"))
			return code, string(out)
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the command did not exit; last screen:\n%s\n%s", tm.Screen(), tm.Files())
		}
		time.Sleep(Poll) // the exit file appears when the command ends: poll it
	}
}

// RawOutput returns every byte the command wrote to the terminal so far (with
// Options.RawOutput), as far as the copy has come: see WaitOutput.
func (tm *Term) RawOutput() string {
	tm.t.Helper()
	b, err := os.ReadFile(filepath.Join(tm.dir, "output"))
	if err != nil {
		tm.t.Fatalf("raw output: %v", err)
	}
	return string(b)
}

// WaitOutput waits until the bytes the command wrote to the terminal (RawOutput)
// contain every one of want, and returns them. The copy (tmux pipe-pane) lags behind
// the screen: a string the screen shows may not be in RawOutput yet.
func (tm *Term) WaitOutput(want ...string) string {
	tm.t.Helper()
	return tm.WaitOutputUntil(fmt.Sprintf("%q", want), func(out string) bool {
		for _, w := range want {
			if !strings.Contains(out, w) {
				return false
			}
		}
		return true
	})
}

// WaitOutputUntil waits until ok holds for the bytes the command wrote to the terminal
// (RawOutput), and returns them; what names the wait in a failure.
func (tm *Term) WaitOutputUntil(what string, ok func(out string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(Deadline)
	for {
		out := tm.RawOutput()
		if ok(out) {
			return out
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the command never wrote %s to the terminal; it wrote:\n%q", what, out)
		}
		time.Sleep(Poll) // a file has no event to wait on
	}
}

// Files describes the command's stdout so far, for failure messages.
func (tm *Term) Files() string {
	out, err := os.ReadFile(filepath.Join(tm.dir, "stdout"))
	if err != nil {
		return "(no stdout file)"
	}
	return "stdout:\n" + string(out)
}

// LineIndex returns the index of the first line of screen containing s, or -1.
func LineIndex(screen, s string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}
