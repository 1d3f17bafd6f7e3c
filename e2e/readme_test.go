package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/elicitty/elicitty/internal/cli"
	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// docCommand is one command line a user reads in the README or in --help.
type docCommand struct {
	line  string // the command without its comment
	where string // "README.md:LINE" or "elicitty CMD --help"
}

// readmeCommands returns every command of the README's ```sh blocks.
func readmeCommands(t *testing.T) []docCommand {
	t.Helper()
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []docCommand
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```sh":
			in = true
		case in && line == "```":
			in = false
		case in:
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line != "" {
				cmds = append(cmds, docCommand{line: line, where: "README.md:" + strconv.Itoa(n)})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// helpExamples returns every line of every command's Example in --help.
func helpExamples(t *testing.T) []docCommand {
	t.Helper()
	var cmds []docCommand
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				cmds = append(cmds, docCommand{line: line, where: c.CommandPath() + " --help"})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.RootCommand(strings.NewReader(""), io.Discard, io.Discard))
	if len(cmds) == 0 {
		t.Fatal("no Example in any --help")
	}
	return cmds
}

// docSkipReason says why a documented command is not run, or "" when it is.
func docSkipReason(line string) string {
	switch {
	case line == "./scripts/test.sh":
		return "it is the test suite this test belongs to"
	case strings.Contains(line, "mcp.example.com"):
		return "needs a server on the internet (and a browser sign-in)"
	case strings.Contains(line, "TARGET") || strings.Contains(line, "CMD ARGS"):
		return "a synopsis with placeholders, not a command"
	}
	return ""
}

// docSkipped is every documented command that is not run, exactly: a new command that
// would be skipped must be added here knowingly, so none goes untested unnoticed.
var docSkipped = []string{
	"./scripts/test.sh",
	"elicitty tasks TARGET --cancel TASK_ID --json",
	"elicitty tasks https://mcp.example.com/mcp --cancel 786512e2 --json",
	"elicitty TARGET... | elicitty -- CMD ARGS",
	"elicitty call https://mcp.example.com/mcp deploy env=prod",
	"elicitty demo https://mcp.example.com/mcp",
	"elicitty skills https://mcp.example.com/mcp",
	"elicitty skills https://mcp.example.com/mcp pdf-processing",
	"elicitty login https://mcp.example.com/mcp",
	"elicitty logout https://mcp.example.com/mcp",
	"elicitty skills TARGET",
	"elicitty skills TARGET pdf-processing",
	"elicitty skills TARGET pdf-processing --files",
	"elicitty skills TARGET pdf-processing references/FORMS.md",
	"elicitty skills TARGET skill://acme/billing/refunds/SKILL.md --json",
	"elicitty tools https://mcp.example.com/mcp --json",
	"elicitty prompts https://mcp.example.com/mcp --json",
	"elicitty resources https://mcp.example.com/mcp --json",
	"elicitty call https://mcp.example.com/mcp deploy '{\"env\":\"prod\"}'",
	"elicitty skills https://mcp.example.com/mcp pdf-processing --files",
	"elicitty skills https://mcp.example.com/mcp pdf-processing references/FORMS.md",
	"elicitty skills https://mcp.example.com/mcp skill://acme/billing/refunds/SKILL.md --json",
	"elicitty proxy https://mcp.example.com/mcp",
}

// docExitCodes are the documented commands that do not exit 0, with the code they
// must exit with. Without a terminal or an answers file a form cannot be answered:
// the command prints an answers-file entry and exits 3.
var docExitCodes = map[string]int{
	"elicitty render schema.json":                                                           cli.ExitUnanswered,
	"elicitty render examples/schema.json":                                                  cli.ExitUnanswered,
	"elicitty desc preview server.mcpdesc.yaml tools/assign_issue choose_assignee":          cli.ExitUnanswered,
	"elicitty desc preview examples/server.mcpdesc.yaml tools/assign_issue choose_assignee": cli.ExitUnanswered,
	"elicitty desc preview server.mcpdesc.json tools/assign_issue choose_assignee":          cli.ExitUnanswered,
	"elicitty call demo deploy env=prod":                                                    cli.ExitUnanswered,
	"elicitty render - < examples/params.json":                                              cli.ExitUnanswered,
	"elicitty render - < params.json":                                                       cli.ExitUnanswered,
	"BROWSER=false elicitty call demo needs_link":                                           cli.ExitUnanswered,
}

// TestDocumentedCommandsRun runs every command of the README's ```sh blocks and of
// every --help Example, on a machine with no config (the demo is the built-in target),
// in a folder holding the files they name (a copy of examples/), each with a timeout, and
// checks its exit code. The terminal UI commands run in tmux, are seen to show the demo
// server and quit with q.
func TestDocumentedCommandsRun(t *testing.T) {
	cmds := append(readmeCommands(t), helpExamples(t)...)
	var skipped []string
	seen := map[string]bool{}
	for _, c := range cmds {
		if seen[c.line] {
			continue
		}
		seen[c.line] = true
		if docSkipReason(c.line) != "" {
			skipped = append(skipped, c.line)
			continue
		}
		t.Run(c.line, func(t *testing.T) { runDocCommand(t, c) })
	}
	want := slices.Clone(docSkipped)
	slices.Sort(want)
	slices.Sort(skipped)
	if !slices.Equal(skipped, want) {
		t.Errorf("documented commands that are not run:\n  %s\nwant exactly:\n  %s", strings.Join(skipped, "\n  "), strings.Join(want, "\n  "))
	}
}

// runDocCommand runs one documented command the way a user would.
func runDocCommand(t *testing.T, c docCommand) {
	line := c.line
	switch line {
	case "go run . demo", "elicitty", "elicitty demo":
		args := []string{"demo"}
		if line == "elicitty" {
			args = nil
		}
		mark := fmt.Sprintf("ELICITTY_DOC_RUN=%d", runSeq.Add(1))
		tm := startTerm(t, tmuxterm.Options{Env: []string{mark}}, args...)
		tm.WaitFor("demo ready", "form_all_kinds")
		tm.Keys("q")
		if code, _ := tm.Wait(); code != 0 {
			t.Errorf("%s (%s) exited %d after q, want 0", line, c.where, code)
		}
		// The demo server ends with the TUI (the terminal's shell, which has the mark
		// too, stays until the test ends).
		if pids := serveDemoWithEnv(mark); len(pids) > 0 {
			t.Errorf("%s: the demo server outlived the TUI: pids %v", line, pids)
		}
		return
	}
	if strings.HasPrefix(line, "elicitty serve-demo --http ") {
		runDocServeDemo(t, c)
		return
	}
	if strings.Contains(line, "npx -y @modelcontextprotocol/server-everything") {
		js := everythingJS(t) // the installed package; npx would fetch it
		line = strings.Replace(line, "npx -y @modelcontextprotocol/server-everything", "node "+shellQuote(js), 1)
	}
	want := docExitCodes[line]
	if strings.Contains(line, "proxy --uninstall ") {
		// What it undoes comes first, as in the README: the install it names.
		line = strings.Replace(line, "--uninstall", "--install", 1) + " >/dev/null && " + line
	}
	r := runDocShell(t, line, 60*time.Second)
	if r.code != want {
		t.Fatalf("%s (%s) exited %d, want %d\nstdout:\n%s\nstderr:\n%s", c.line, c.where, r.code, want, r.stdout, r.stderr)
	}
	if want == cli.ExitUnanswered && !strings.Contains(r.stderr, "An answers-file entry that would answer it") {
		t.Errorf("%s: exit 3 without the answers-file entry that would answer it:\n%s", c.line, r.stderr)
	}
}

// runDocServeDemo starts the documented `serve-demo --http` on a free port instead of
// the documented one, lists its tools over HTTP, and stops it.
func runDocServeDemo(t *testing.T, c docCommand) {
	if fields := strings.Fields(c.line); len(fields) != 4 {
		t.Fatalf("%s: want `elicitty serve-demo --http ADDR`", c.where)
	}
	u := startDemoHTTP(t) // the same command, on a port the kernel chose
	if r := runDocShell(t, "elicitty tools "+u, 30*time.Second); r.code != 0 || !strings.Contains(r.stdout, "form_all_kinds") {
		t.Fatalf("tools over the served demo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// runDocShell runs line with sh in a folder holding a copy of examples/ (README lines
// name examples/FILE, --help examples name FILE), with the elicitty binary
// first on PATH, a private HOME and no terminal, kills its process group after timeout,
// and checks that none of its processes (servers it started) outlives it.
func runDocShell(t *testing.T, line string, timeout time.Duration) result {
	t.Helper()
	dir := t.TempDir()
	copyExamples(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	home := filepath.Join(dir, ".home")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "NO_COLOR=1",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	mark := fmt.Sprintf("ELICITTY_DOC_RUN=%d", runSeq.Add(1))
	cmd.Env = append(cmd.Env, mark)
	err := cmd.Run()
	defer noSurvivorsIn(t, "environ", append([]byte(mark), 0))
	if ctx.Err() != nil {
		t.Fatalf("%q did not finish within %s\nstdout:\n%s\nstderr:\n%s", line, timeout, stdout.String(), stderr.String())
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run %q: %v", line, err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// serveDemoWithEnv returns the running `serve-demo` processes whose environment holds
// mark, after giving an ending process a moment to be reaped.
func serveDemoWithEnv(mark string) []int {
	deadline := time.Now().Add(3 * time.Second)
	for {
		var alive []int
		procs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, p := range procs {
			env, err := os.ReadFile(p)
			if err != nil || !bytes.Contains(env, append([]byte(mark), 0)) {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
			if bytes.Contains(cmdline, []byte("serve-demo")) {
				if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
					alive = append(alive, pid)
				}
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(50 * time.Millisecond) // a process that was told to stop takes a moment
	}
}

// copyExamples copies the repository's examples/ folder into dir, as examples/ (what
// the README names, run from a clone's root) and at dir's top (what --help examples name).
func copyExamples(t *testing.T, dir string) {
	t.Helper()
	src, err := os.ReadDir("../examples")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range src {
		b, err := os.ReadFile(filepath.Join("../examples", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range []string{filepath.Join(dir, "examples", e.Name()), filepath.Join(dir, e.Name())} {
			if err := os.WriteFile(to, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
