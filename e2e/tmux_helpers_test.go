package e2e

import (
	"fmt"
	"os"
	"path/filepath"
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

// runMark is a fresh KEY=VALUE for the environment of the processes a test starts. At
// the test's end, after the cleanups registered later (the terminals, hosts and
// proxies), the test fails when a process that carries it still runs.
func runMark(t *testing.T) string {
	t.Helper()
	mark := fmt.Sprintf("ELICITTY_TEST_RUN=%d-%d", os.Getpid(), runSeq.Add(1))
	t.Cleanup(func() { noSurvivorsIn(t, "environ", append([]byte(mark), 0)) })
	return mark
}

// recordingOpener is a URL opener (ELICITTY_OPENER) that only appends each link it is
// given to the file record, one a line: it fetches nothing.
func recordingOpener(t *testing.T) (opener, record string) {
	t.Helper()
	dir := t.TempDir()
	record = filepath.Join(dir, "opened")
	opener = filepath.Join(dir, "opener.sh")
	if err := os.WriteFile(opener, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+shellQuote(record)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return opener, record
}
