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

// startTerm runs the elicitty binary with args in a fresh tmux server (tmuxterm.Start).
func startTerm(t *testing.T, opts tmuxterm.Options, args ...string) *tmuxTerm {
	t.Helper()
	return tmuxterm.Start(t, bin, opts, args...)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return tmuxterm.ShellQuote(s) }

// lineIndex returns the index of the first line of screen containing s, or -1.
func lineIndex(screen, s string) int { return tmuxterm.LineIndex(screen, s) }
