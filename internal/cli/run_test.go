package cli

import (
	"strings"
	"testing"
)

// cliResult is what one in-process run of the command line produced.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command line in-process with args, an empty stdin and captured
// output, as the binary would (Run is the whole program).
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	var stdout, stderr strings.Builder
	code := Run(args, strings.NewReader(""), &stdout, &stderr)
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}
