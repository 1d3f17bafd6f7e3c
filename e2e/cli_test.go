package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/cli"
)

// bin is the elicitty binary built once for the end-to-end tests.
var bin string

// modulePath is the import path of the elicitty command, what the tests build.
const modulePath = "github.com/elicitty/elicitty"

// cliPkg is the package whose version, commit and date a release build sets.
const cliPkg = modulePath + "/internal/cli"

func TestMain(m *testing.M) {
	if mode := os.Getenv(stubbornEnv); mode != "" {
		os.Exit(stubbornServer(mode))
	}
	flag.Parse()
	if testing.Short() {
		// The quick tier (go test -short ./...) starts no external program; this
		// package is the end-to-end tier and is all binaries, terminals and servers.
		fmt.Println("e2e: the end-to-end tier does not run under -short")
		os.Exit(0)
	}
	// The tests marked parallel here mostly wait (on hosts, servers, a person's
	// scripted delay) rather than compute: four at a time, not one per core, unless
	// -parallel says otherwise.
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", "4")
	}
	dir, err := os.MkdirTemp("", "elicitty-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "elicitty")
	// Every binary a test starts sees its own inbox directory, never the proxies of
	// the developer running the tests, and raises no desktop notification; the
	// helpers give each test a directory of its own on top of this.
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("ELICITTY_RUNTIME_DIR", run)
	os.Setenv("ELICITTY_NOTIFY", "off")
	out, err := exec.Command("go", "build", "-o", bin, modulePath).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build elicitty: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary produced.
type result struct {
	code           int
	stdout, stderr string
}

// runBin runs the elicitty binary with args, no terminal on stdin, and a private
// config directory so the developer's own config never leaks in.
func runBin(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runBinIn(t, t.TempDir(), env, args...)
}

// runBinHere runs the binary in the package directory, so testdata/ paths resolve.
func runBinHere(t *testing.T, args ...string) result {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return runBinIn(t, wd, nil, args...)
}

func runBinIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1",
		// No session bus: OAuth tokens go to the file under HOME, never to the
		// developer's own keyring.
		"DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR=", "ELICITTY_RUNTIME_DIR="+filepath.Join(home, "run"))
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// freeAddr returns a loopback address with a free port.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startDemoHTTP runs `elicitty serve-demo --http 127.0.0.1:0` and returns the MCP URL
// it reports on stderr. Port 0 lets the kernel choose: a port probed free and closed
// (freeAddr) can be taken by another test's server or connection before the demo binds
// it. The process is killed when the test ends, and a demo that exits early fails the
// test with its stderr.
func startDemoHTTP(t *testing.T) string {
	t.Helper()
	u, _ := startDemoHTTPKill(t)
	return u
}

// startDemoHTTPKill is startDemoHTTP that also returns kill, which ends the demo
// server at once (SIGKILL) and returns once it is gone.
func startDemoHTTPKill(t *testing.T) (mcpURL string, kill func()) {
	t.Helper()
	cmd := exec.Command(bin, "serve-demo", "--http", "127.0.0.1:0")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr strings.Builder
	found := make(chan string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() { // read to the end: the demo never blocks on its stderr
			line := sc.Text()
			mu.Lock()
			stderr.WriteString(line + "\n")
			mu.Unlock()
			if _, after, ok := strings.Cut(line, "MCP endpoint "); ok {
				select {
				case found <- strings.Fields(after)[0]:
				default:
				}
			}
		}
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		<-read // every read from the pipe comes before Wait
		waitErr = cmd.Wait()
		close(exited)
	}()
	kill = func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	t.Cleanup(kill)
	select {
	case u := <-found:
		return u, kill
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("serve-demo exited before it served: %v\n%s", waitErr, stderr.String())
	case <-time.After(30 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("serve-demo named no MCP endpoint within 30 s:\n%s", stderr.String())
	}
	return "", kill
}

// waitListening waits until addr accepts connections, failing the test with what's
// stderr after within; polling the port is the only readiness signal a server gives.
func waitListening(t *testing.T, addr string, within time.Duration, what string, stderr *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %s", what, addr, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestVersionAndHelp(t *testing.T) {
	r := runBin(t, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "elicitty version ") {
		t.Fatalf("--version: code %d, stdout %q", r.code, r.stdout)
	}
	for _, cmd := range []string{"tools", "prompts", "resources", "call", "prompt", "read", "render", "desc", "serve-demo", "doctor", "conformance", "demo", "completion", "tasks"} {
		r := runBin(t, nil, cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("%s --help: code %d, stdout %q stderr %q", cmd, r.code, r.stdout, r.stderr)
		}
	}
	r = runBin(t, nil, "completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "__start_elicitty") {
		t.Errorf("completion bash: code %d", r.code)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"tools", "--bogus"}, "unknown flag"},
		{"mistyped subcommand", []string{"tool", "demo"}, `unknown command "tool" for "elicitty"; did you mean tools?`},
		{"mistyped subcommand of a group", []string{"desc", "lnt", "x.yaml"}, `unknown command "lnt" for "elicitty desc"; did you mean lint?`},
		{"too few arguments", []string{"render"}, "accepts 1 arg(s), received 0"},
		{"too many arguments", []string{"serve-demo", "x"}, `unknown command "x"`},
		{"doctor with two targets", []string{"doctor", "demo", "x"}, `doctor takes one TARGET, got extra arguments`},
		{"unknown target", []string{"tools", "nosuchserver"}, "nosuchserver"},
		{"missing target", []string{"call"}, "missing TARGET"},
		{"nothing after dash", []string{"tools", "--"}, "nothing after --"},
		{"unknown protocol", []string{"tools", "demo", "--protocol", "2024-01-01"}, "--protocol must be"},
		{"negative timeout", []string{"tools", "demo", "--timeout", "-5s"}, "--timeout, --handshake-timeout, --url-wait and --task-wait must not be negative"},
		{"unwritable record", []string{"tools", "demo", "--record", "/nonexistent-dir/rec.yaml"}, "--record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBin(t, nil, tt.args...)
			if r.code != cli.ExitUsage {
				t.Fatalf("exit code %d, want %d; stderr %q", r.code, cli.ExitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q does not mention %q", r.stderr, tt.want)
			}
		})
	}
}

func TestBadConfigNamesFileAndLine(t *testing.T) {
	cfg := writeFile(t, "config.yaml", "servers:\n  demo:\n    command: x\n    timeout: 3x\n")
	r := runBin(t, nil, "tools", "demo", "--config", cfg)
	if r.code != cli.ExitUsage {
		t.Fatalf("exit %d, want 2; stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "config.yaml:4") || !strings.Contains(r.stderr, "timeout") {
		t.Errorf("stderr %q should name config.yaml:4 and the field", r.stderr)
	}
}

func TestToolsOverStdioAndHTTP(t *testing.T) {
	url := startDemoHTTP(t)
	for name, args := range map[string][]string{
		"stdio": {"tools", "--", bin, "serve-demo"},
		"http":  {"tools", url},
	} {
		t.Run(name, func(t *testing.T) {
			r := runBin(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d; stderr %q", r.code, r.stderr)
			}
			for _, tool := range []string{"form_all_kinds", "link_account", "needs_link", "mrtr_multi", "add"} {
				if !strings.Contains(r.stdout, tool) {
					t.Errorf("tools output lacks %q:\n%s", tool, r.stdout)
				}
			}
		})
	}
}

func TestCallJSONOutput(t *testing.T) {
	r := runBin(t, nil, "call", "add", "a=2", "b=3", "--json", "--", bin, "serve-demo")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %q", r.code, r.stderr)
	}
	var out struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
		Rounds []any `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, r.stdout)
	}
	if len(out.Result.Content) == 0 || !strings.Contains(out.Result.Content[0].Text, "5") {
		t.Errorf("add 2+3: got %+v", out.Result)
	}
}

func TestUnansweredWithoutTTYExits3(t *testing.T) {
	r := runBin(t, nil, "call", "confirm_only", "--", bin, "serve-demo")
	if r.code != cli.ExitUnanswered {
		t.Fatalf("exit %d, want 3; stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "action:") || !strings.Contains(r.stderr, "match:") {
		t.Errorf("stderr should print an answers-file entry:\n%s", r.stderr)
	}
	r = runBin(t, nil, "call", "confirm_only", "--on-unanswered", "decline", "--", bin, "serve-demo")
	if r.code != 0 || !strings.Contains(r.stdout, "declined") {
		t.Errorf("--on-unanswered decline: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestServerFailures(t *testing.T) {
	t.Run("exits at once", func(t *testing.T) {
		r := runBin(t, nil, "tools", "--", "sh", "-c", "echo boom >&2; exit 7")
		if r.code != cli.ExitConn {
			t.Fatalf("exit %d, want 4; stderr %q", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "7") || !strings.Contains(r.stderr, "boom") {
			t.Errorf("stderr should give exit status and last stderr line: %q", r.stderr)
		}
		if strings.Count(strings.TrimSpace(r.stderr), "\n") > 3 {
			t.Errorf("stderr should be short: %q", r.stderr)
		}
	})
	t.Run("unreachable http", func(t *testing.T) {
		r := runBin(t, nil, "tools", "http://"+freeAddr(t)+"/mcp", "--timeout", "5s")
		if r.code != cli.ExitConn {
			t.Fatalf("exit %d, want 4; stderr %q", r.code, r.stderr)
		}
	})
	t.Run("not found", func(t *testing.T) {
		r := runBin(t, nil, "tools", "--", "/nonexistent/server-binary")
		if r.code != cli.ExitConn {
			t.Fatalf("exit %d, want 4; stderr %q", r.code, r.stderr)
		}
	})
	t.Run("banner on stdout", func(t *testing.T) {
		r := runBin(t, nil, "tools", "--", "sh", "-c", "echo 'Server starting, hello!'; exec \"$0\" serve-demo", bin)
		if r.code != 0 || !strings.Contains(r.stdout, "form_all_kinds") {
			t.Fatalf("a banner line must not kill the session: exit %d stderr %q", r.code, r.stderr)
		}
	})
}

// TestServeDemoBadAddressIsUsageError: a non-loopback or malformed --http is refused
// with exit 2 before the demo server (and its consent listener) starts.
func TestServeDemoBadAddressIsUsageError(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8099", "bogus", "127.0.0.1:99999", "example.com:80"} {
		r := runBin(t, nil, "serve-demo", "--http", addr)
		if r.code != cli.ExitUsage {
			t.Errorf("serve-demo --http %s: exit %d, want %d; stderr %q", addr, r.code, cli.ExitUsage, r.stderr)
		}
		if strings.Contains(r.stderr, "consent pages on") {
			t.Errorf("serve-demo --http %s started the demo before refusing: %q", addr, r.stderr)
		}
	}
}

// TestJSONErrorObject checks that a failed command with --json still prints one JSON
// value on stdout, the error object, with the exit code unchanged.
func TestJSONErrorObject(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"tools", "nope", "--json"}, cli.ExitUsage},
		{[]string{"call", "demo", "deploy", "--json"}, cli.ExitUnanswered},
		{[]string{"tools", "http://" + freeAddr(t) + "/mcp", "--json", "--timeout", "5s"}, cli.ExitConn},
	} {
		r := runBin(t, nil, tc.args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d; stderr %s", tc.args, r.code, tc.code, r.stderr)
			continue
		}
		var out struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error.Code != tc.code || out.Error.Message == "" {
			t.Errorf("%v: stdout is not the error object (%v):\n%s", tc.args, err, r.stdout)
		}
	}
}

// TestDoctorTarget checks `doctor TARGET` on a configured server and on one that cannot
// be reached.
func TestDoctorTarget(t *testing.T) {
	r := runBin(t, nil, "doctor", "--", bin, "serve-demo")
	for _, want := range []string{"connect elicitty (stdio): ok", "server: elicitty-demo", "protocol: 2025-11-25 (",
		"capabilities: tools, prompts, resources", "tools/list: ok (", "all checks passed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor -- elicitty serve-demo: stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 {
		t.Errorf("exit %d, want 0; stderr %s", r.code, r.stderr)
	}
	r = runBin(t, nil, "doctor", "http://"+freeAddr(t)+"/mcp", "--timeout", "5s")
	if r.code != cli.ExitConn || !strings.Contains(r.stdout, ": FAIL ") {
		t.Errorf("unreachable server: exit %d, stdout %q; want 4 and a FAIL line", r.code, r.stdout)
	}
}

// TestConformanceHiddenFromHelp checks that the test suite's client is not offered to
// end users in --help, yet still runs.
func TestConformanceHiddenFromHelp(t *testing.T) {
	r := runBin(t, nil, "--help")
	if r.code != 0 || strings.Contains(r.stdout, "conformance") || !strings.Contains(r.stdout, "doctor") {
		t.Errorf("--help: exit %d, lists conformance or lacks doctor:\n%s", r.code, r.stdout)
	}
}
