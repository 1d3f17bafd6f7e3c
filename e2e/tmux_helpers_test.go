package e2e

import (
	"testing"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// The e2e tests drive the binary in a real terminal through internal/testkit/tmuxterm.
const (
	termPoll     = tmuxterm.Poll
	termDeadline = tmuxterm.Deadline
)

// tmuxTerm is the elicitty binary running in a real terminal.
type tmuxTerm = tmuxterm.Term

// termOptions says how to run the binary in the terminal (tmuxterm.Options).
type termOptions struct {
	env          []string
	stdoutToFile bool
	rawOutput    bool
	cols, rows   int
	workDir      string
}

// startTerm runs the elicitty binary with args in a fresh tmux server (tmuxterm.Start).
func startTerm(t *testing.T, opts termOptions, args ...string) *tmuxTerm {
	t.Helper()
	return tmuxterm.Start(t, bin, tmuxterm.Options{
		Env: opts.env, StdoutToFile: opts.stdoutToFile, RawOutput: opts.rawOutput, Cols: opts.cols, Rows: opts.rows,
		WorkDir: opts.workDir,
	}, args...)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return tmuxterm.ShellQuote(s) }

// lineIndex returns the index of the first line of screen containing s, or -1.
func lineIndex(screen, s string) int { return tmuxterm.LineIndex(screen, s) }
