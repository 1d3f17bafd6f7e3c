package e2e

import (
	"strings"
	"testing"

	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// TestTmuxUIStdoutToFile: the terminal UI draws on stdout, so with stdout sent to a
// file (`elicitty demo > out`) it refuses at once, saying why, rather than drawing
// into the file while the terminal stays blank.
func TestTmuxUIStdoutToFile(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true}, "demo")
	tm.WaitFor("the terminal UI needs a terminal on standard input and output")
	code, stdout := tm.Wait()
	if code != cli.ExitUsage || strings.Contains(stdout, "\x1b[") {
		t.Errorf("exit %d, stdout %q; want %d and no drawing", code, stdout, cli.ExitUsage)
	}
}
