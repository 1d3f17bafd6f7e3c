package cli

import (
	"os"
	"path/filepath"
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

// TestDemoTakesTargets: `elicitty demo URL` opens the demo beside URL, as `elicitty URL
// demo` does, rather than refusing the argument (without a terminal it then says the
// UI needs one).
func TestDemoTakesTargets(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "demo", "http://127.0.0.1:9/mcp", "--config", cfg, "--no-imports")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "the terminal UI needs a terminal") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, "demo", "--config", cfg, "--no-imports", "--", "sh", "-c", "exit 0"); r.code != ExitUsage || !strings.Contains(r.stderr, "needs a terminal") {
		t.Errorf("demo -- COMMAND: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestConfigWithoutServersNamesTheDemo: an empty catalog still names the built-in demo
// target, and a --root that does not exist is warned about.
func TestConfigWithoutServersNamesTheDemo(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	r := runCLI(t, "config", "--config", cfg, "--no-imports", "--root", missing)
	if r.code != 0 || !strings.Contains(r.stdout, "no servers are configured") || !strings.Contains(r.stdout, "elicitty tools demo") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "warning: --root \""+missing+"\" is not an existing directory") {
		t.Errorf("stderr lacks the --root warning:\n%s", r.stderr)
	}
}
