package e2e

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
	termPoll     = 20 * time.Millisecond
	termDeadline = 15 * time.Second
)

// tmuxTerm is one elicitty command running in a real terminal: a detached 80x24 session
// of a tmux server of its own (private socket), driven with send-keys and read with
// capture-pane. The server is killed when the test ends.
type tmuxTerm struct {
	t      *testing.T
	socket string // the -L name of this test's tmux server
	dir    string // the command's files: run.sh, stdout, exit
}

// termOptions says how to run the command in the terminal.
type termOptions struct {
	// env is added to the command's environment (KEY=VALUE).
	env []string
	// stdoutToFile redirects the command's stdout to a file (read with wait), leaving
	// stdin and stderr on the terminal, as for `elicitty call ... > out.json`.
	stdoutToFile bool
	// rawOutput copies every byte the command writes to the terminal to the file
	// "output" (tmux pipe-pane); the command starts once the copy runs. Read it with
	// rawOutput.
	rawOutput bool
	// cols and rows size the terminal; zero means 80x24.
	cols, rows int
}

// requireTmux skips the test without tmux, except on CI (CI set), where
// scripts/setup.sh installs it and its absence is a failure.
func requireTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing: scripts/setup.sh installs it")
		}
		t.Skip("tmux not installed")
	}
}

var unsafeSocketChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// startTerm runs the elicitty binary with args in a fresh tmux server, with NO_COLOR
// set and a private HOME and XDG_CONFIG_HOME so no user config leaks in.
func startTerm(t *testing.T, opts termOptions, args ...string) *tmuxTerm {
	t.Helper()
	requireTmux(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	tm := &tmuxTerm{
		t:      t,
		socket: fmt.Sprintf("elicitty-%d-%s", os.Getpid(), unsafeSocketChars.ReplaceAllString(t.Name(), "_")),
		dir:    dir,
	}

	var sh strings.Builder
	// A private inbox directory: the TUI attaches to no proxy but the test's own.
	env := append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "NO_COLOR=1",
		"ELICITTY_RUNTIME_DIR=" + filepath.Join(home, "run")}, opts.env...)
	for _, kv := range env {
		fmt.Fprintf(&sh, "export %s\n", shellQuote(kv))
	}
	fmt.Fprintf(&sh, "cd %s\n", shellQuote(dir))
	if opts.rawOutput {
		// Start only once pipe-pane copies the output (startTerm creates "piping").
		sh.WriteString("i=0; while [ ! -e piping ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done\n")
	}
	sh.WriteString(shellQuote(bin))
	for _, a := range args {
		sh.WriteString(" " + shellQuote(a))
	}
	if opts.stdoutToFile {
		sh.WriteString(" > stdout")
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
	if opts.cols > 0 && opts.rows > 0 {
		cols, rows = opts.cols, opts.rows
	}
	tm.tmux("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "sh", script)
	socketPath := strings.TrimSpace(tm.tmux("display-message", "-p", "#{socket_path}"))
	if opts.rawOutput {
		tm.tmux("pipe-pane", "-t", "e2e", "-o", "cat >> "+shellQuote(filepath.Join(dir, "output")))
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

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (tm *tmuxTerm) tmux(args ...string) string {
	tm.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...)
	cmd.Env = tmuxEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the visible text of the terminal.
func (tm *tmuxTerm) screen() string { return tm.tmux("capture-pane", "-p", "-t", "e2e") }

// rawScreen is the visible text with its attributes as escape sequences (bold is
// "\x1b[1m", reverse video "\x1b[7m"): with NO_COLOR, attributes are all that mark a
// choice.
func (tm *tmuxTerm) rawScreen() string { return tm.tmux("capture-pane", "-p", "-e", "-t", "e2e") }

// keys sends tmux key names (Enter, Down, C-x, Escape, ...).
func (tm *tmuxTerm) keys(k ...string) {
	tm.t.Helper()
	tm.tmux(append([]string{"send-keys", "-t", "e2e"}, k...)...)
}

// typeText sends s literally, as typed.
func (tm *tmuxTerm) typeText(s string) {
	tm.t.Helper()
	tm.tmux("send-keys", "-t", "e2e", "-l", s)
}

// waitUntil polls the screen (raw when raw is set) until ok accepts it and returns
// that screen; after termDeadline it fails the test with what the screen last showed.
func (tm *tmuxTerm) waitUntil(what string, raw bool, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(termDeadline)
	for {
		s := tm.screen()
		if raw {
			s = tm.rawScreen()
		}
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %s; last screen:\n%s\n%s", what, tm.screen(), tm.files())
		}
		time.Sleep(termPoll) // a terminal has no event to wait on: poll its screen
	}
}

// waitFor waits until the screen contains every one of want and returns it.
func (tm *tmuxTerm) waitFor(want ...string) string {
	tm.t.Helper()
	return tm.waitUntil(fmt.Sprintf("%q", want), false, func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// waitRaw waits until the screen with its attributes contains want.
func (tm *tmuxTerm) waitRaw(want string) string {
	tm.t.Helper()
	return tm.waitUntil(fmt.Sprintf("%q (with attributes)", want), true, func(s string) bool {
		return strings.Contains(s, want)
	})
}

// waitFocus waits until the huh field titled title has the focus (its lines carry
// the focus bar) and returns the screen.
func (tm *tmuxTerm) waitFocus(title string) string {
	tm.t.Helper()
	return tm.waitFor("┃ " + title)
}

// wait waits for the command to exit and returns its exit code and stdout (when
// redirected to a file).
func (tm *tmuxTerm) wait() (code int, stdout string) {
	tm.t.Helper()
	deadline := time.Now().Add(termDeadline)
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
			tm.t.Fatalf("the command did not exit; last screen:\n%s\n%s", tm.screen(), tm.files())
		}
		time.Sleep(termPoll) // the exit file appears when the command ends: poll it
	}
}

// rawOutput returns every byte the command wrote to the terminal so far (with
// termOptions.rawOutput).
func (tm *tmuxTerm) rawOutput() string {
	tm.t.Helper()
	b, err := os.ReadFile(filepath.Join(tm.dir, "output"))
	if err != nil {
		tm.t.Fatalf("raw output: %v", err)
	}
	return string(b)
}

// files describes the command's stdout so far, for failure messages.
func (tm *tmuxTerm) files() string {
	out, err := os.ReadFile(filepath.Join(tm.dir, "stdout"))
	if err != nil {
		return "(no stdout file)"
	}
	return "stdout:\n" + string(out)
}

// lineIndex returns the index of the first line of screen containing s, or -1.
func lineIndex(screen, s string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}
