package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives a real terminal: the elicitty binary in a detached 80x24 tmux
// session.
type tmuxSession struct {
	t    *testing.T
	name string
}

// TestTmuxDemo runs `elicitty demo` in tmux at 80x24: it calls the demo's echo tool
// through its argument form, then answers an MRTR round of mrtr_one, typing keys as a
// user would and reading the screen. It runs when ELICITTY_BIN names a prebuilt binary,
// or when ELICITTY_E2E=1 (the module's main package is then built); CI sets one.
// Skipped without tmux or with -short.
func TestTmuxDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped with -short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	bin := os.Getenv("ELICITTY_BIN")
	if bin == "" && os.Getenv("ELICITTY_E2E") != "1" {
		t.Skip("set ELICITTY_E2E=1 or ELICITTY_BIN to run the tmux end-to-end test")
	}
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "elicitty")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/elicitty/elicitty").CombinedOutput()
		if err != nil {
			t.Fatalf("build elicitty: %v\n%s", err, out)
		}
	}
	s := &tmuxSession{t: t, name: fmt.Sprintf("elicitty-e2e-%d", os.Getpid())}
	s.tmux("new-session", "-d", "-s", s.name, "-x", "80", "-y", "24", "env", "NO_COLOR=1", "TERM=xterm-256color", bin, "demo")
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", s.name).Run() })

	s.waitFor("ready")
	s.selectTool("echo")
	s.keys("Enter")
	s.waitFor("Arguments for tool")
	s.text("hello tmux")
	s.keys("Enter")
	s.waitFor(`"action": "accept"`)
	s.keys("a")
	s.waitFor("tools/call echo · done")
	if !strings.Contains(s.screen(), "hello tmux") {
		t.Fatalf("echo result not on screen:\n%s", s.screen())
	}

	s.selectTool("mrtr_one")
	s.keys("Enter")
	s.waitFor("Arguments for tool")
	s.keys("a")                // no arguments: accept at once
	s.waitFor("Pick a colour") // a pushed form (2025-11-25, the default era) or an input request
	s.keys("Enter")            // the first colour
	s.waitFor(`"action": "accept"`)
	s.keys("a")
	s.waitFor("tools/call mrtr_one · done")
	if got := s.screen(); !strings.Contains(got, "you picked") {
		t.Fatalf("MRTR result not on screen:\n%s", got)
	}
	s.keys("q")
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", s.name) }

func (s *tmuxSession) keys(k ...string) { s.tmux(append([]string{"send-keys", "-t", s.name}, k...)...) }

// text types s one key at a time, waiting for each to show, so no key lands in a field
// that is still taking focus.
func (s *tmuxSession) text(str string) {
	for i, r := range str {
		s.tmux("send-keys", "-t", s.name, "-l", string(r))
		s.waitFor(strings.TrimRight(str[:i+len(string(r))], " "))
	}
}

// waitFor polls the screen until it contains want, failing after 10 s.
func (s *tmuxSession) waitFor(want string) {
	s.t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		if strings.Contains(s.screen(), want) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			s.t.Fatalf("screen never showed %q:\n%s", want, s.screen())
		}
	}
}

// selectTool moves the Tools list cursor onto the tool called name. After each Down it
// waits for the selection itself to move (not for any change of the screen), so a key is
// never sent twice for one step.
func (s *tmuxSession) selectTool(name string) {
	s.t.Helper()
	prev := ""
	for range 40 {
		cur := s.waitSelection(prev)
		if strings.Contains(cur, "demo       "+name+"  ") {
			return
		}
		prev = cur
		s.keys("Down")
	}
	s.t.Fatalf("tool %q not found:\n%s", name, s.screen())
}

// selectedLine returns the main-area line shown in reverse video (the selection; with
// NO_COLOR that is its only mark), or "".
func (s *tmuxSession) selectedLine() string {
	out := s.tmux("capture-pane", "-p", "-e", "-t", s.name)
	for _, line := range strings.Split(out, "\n") {
		if _, main, ok := strings.Cut(line, "│"); ok && strings.Contains(main, "\x1b[7m") {
			return main
		}
	}
	return ""
}

// waitSelection waits until a selection is shown that differs from prev.
func (s *tmuxSession) waitSelection(prev string) string {
	s.t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		if cur := s.selectedLine(); cur != "" && cur != prev {
			return cur
		}
		select {
		case <-tick.C:
		case <-deadline:
			s.t.Fatalf("the selection never moved:\n%s", s.screen())
		}
	}
}
