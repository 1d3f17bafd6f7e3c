package e2e

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Field interop: third-party servers, run with their default flags, checked by what
// they received (their tool results echo it back).

// buildGoSDKExample builds one of go-sdk's example servers (from the module cache,
// at the go-sdk version go.mod requires) into a fresh folder and returns its path.
func buildGoSDKExample(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", exe, "github.com/modelcontextprotocol/go-sdk/examples/server/"+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of go-sdk's %s example: %v\n%s", name, err, out)
	}
	return exe
}

// noSurvivors fails the test when a process whose command line mentions marker (a
// test's own temporary folder) is still running.
func noSurvivors(t *testing.T, marker string) {
	t.Helper()
	noSurvivorsIn(t, "cmdline", []byte(marker))
}

// noSurvivorsIn fails the test, and kills them, when processes whose /proc/PID/file
// (cmdline or environ) holds marker are still running 3 s after the check began; a
// stopped process takes a moment to be reaped.
func noSurvivorsIn(t *testing.T, file string, marker []byte) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		alive := map[int]string{}
		procs, _ := filepath.Glob("/proc/[0-9]*/" + file)
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err != nil || !bytes.Contains(b, marker) {
				continue
			}
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
				alive[pid] = strings.ReplaceAll(string(cmdline), "\x00", " ")
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for pid := range alive {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("processes still running after the test (killed now): %v", alive)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startServer runs an HTTP server command, waits until addr accepts connections, and
// stops it when the test ends, checking that no process whose command line holds
// marker (a word unique to this test among its arguments) survives.
func startServer(t *testing.T, addr, marker string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		noSurvivors(t, marker)
	})
	waitListening(t, addr, 20*time.Second, name, &stderr)
}

// callWithAnswers runs `elicitty call ... --json --answers FILE` with a one-entry
// answers file and returns the decoded output.
func callWithAnswers(t *testing.T, answers string, args ...string) (callOutput, result) {
	t.Helper()
	file := writeFile(t, "answers.yaml", answers)
	full := append([]string{"call", "--json", "--answers", file}, args...)
	r := runBin(t, nil, full...)
	var out callOutput
	if r.code == 0 {
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
		}
	}
	return out, r
}

func resultText(out callOutput) string {
	var b strings.Builder
	for _, c := range out.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestFieldGoSDKEverything runs go-sdk v1.8.0's own "everything" example server with
// its default flags over stdio and Streamable HTTP. It offers both eras; its elicit
// (form) tool pushes elicitation/create and returns the string it received.
func TestFieldGoSDKEverything(t *testing.T) {
	exe := buildGoSDKExample(t, "everything")
	const answers = "- match: {tool: \"elicit (form)\"}\n  action: accept\n  content: {random: field-value-42}\n"
	// Registered first, so it runs last: neither the HTTP server nor a stdio one survives.
	t.Cleanup(func() { noSurvivors(t, filepath.Dir(exe)) })
	addr := freeAddr(t)
	startServer(t, addr, exe, nil, exe, "-http", addr)
	targets := map[string][]string{
		"stdio": {"elicit (form)", "--", exe},
		"http":  {"http://" + addr, "elicit (form)"},
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			out, r := callWithAnswers(t, answers, target...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			if got := resultText(out); got != "field-value-42" {
				t.Errorf("the server received %q, want the answered field-value-42", got)
			}
			if out.Protocol.Version != "2025-11-25" {
				t.Errorf("protocol = %+v; this server pushes requests, so 2025-11-25 was due", out.Protocol)
			}
		})
	}
}

// tsExamples returns the folder of the TypeScript SDK's example servers that
// scripts/setup.sh installs (ELICITTY_TS_SDK_EXAMPLES), or skips the test.
func tsExamples(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ELICITTY_TS_SDK_EXAMPLES")
	if dir == "" {
		t.Skip("ELICITTY_TS_SDK_EXAMPLES is not set: run scripts/setup.sh (scripts/test.sh sets it) to install @modelcontextprotocol/sdk's example servers")
	}
	if _, err := os.Stat(filepath.Join(dir, "elicitationFormExample.js")); err != nil {
		t.Fatalf("ELICITTY_TS_SDK_EXAMPLES=%s has no elicitationFormExample.js: %v", dir, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (scripts/setup.sh installs it)")
	}
	return dir
}

// TestFieldTypeScriptFormExample runs the TypeScript SDK's form elicitation example
// server (Streamable HTTP, its default flags) and checks what its tools received:
// the accepted content field by field with its types (a digits-only ZIP code stays a
// string), and decline and cancel told apart.
func TestFieldTypeScriptFormExample(t *testing.T) {
	dir := tsExamples(t)
	marker := "--elicitty-test=" + t.TempDir()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	startServer(t, addr, marker, []string{"PORT=" + port}, "node", filepath.Join(dir, "elicitationFormExample.js"), marker)
	url := "http://localhost:" + port + "/mcp"

	t.Run("accept", func(t *testing.T) {
		out, r := callWithAnswers(t, "- match: {tool: update_shipping_address}\n  action: accept\n"+
			"  content: {name: Ada, street: 1 Main St, city: Springfield, state: IL, zipCode: \"62701\"}\n",
			url, "update_shipping_address")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		text := resultText(out)
		_, body, ok := strings.Cut(text, "\n\n")
		var got map[string]any
		if !ok || json.Unmarshal([]byte(body), &got) != nil {
			t.Fatalf("the server's answer does not carry the content it received: %q", text)
		}
		want := map[string]any{"name": "Ada", "street": "1 Main St", "city": "Springfield", "state": "IL", "zipCode": "62701"}
		if len(got) != len(want) {
			t.Errorf("the server received %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("the server received %s = %#v, want %#v", k, got[k], v)
			}
		}
	})
	for action, want := range map[string]string{
		"decline": "Registration cancelled by user.",
		"cancel":  "Registration was cancelled.",
	} {
		t.Run(action, func(t *testing.T) {
			out, r := callWithAnswers(t, "- match: {tool: register_user}\n  action: "+action+"\n", url, "register_user")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if got := resultText(out); got != want {
				t.Errorf("the server answered %q, want %q", got, want)
			}
		})
	}
	t.Run("defaults merged", func(t *testing.T) {
		out, r := callWithAnswers(t, "- match: {tool: register_user}\n  action: accept\n"+
			"  content: {username: ada, email: ada@example.com, password: secret123, interests: [ai]}\n",
			url, "register_user")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		// newsletter is not answered: its default (false) is what the server gets.
		if got, want := resultText(out), "Registration successful!\n\nUsername: ada\nEmail: ada@example.com\nNewsletter: No"; got != want {
			t.Errorf("the server answered %q, want %q", got, want)
		}
	})
}
