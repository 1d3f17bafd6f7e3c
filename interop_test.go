package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	deadline := time.Now().Add(3 * time.Second)
	for {
		var alive []string
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err == nil && bytes.Contains(b, []byte(marker)) {
				alive = append(alive, strings.ReplaceAll(string(b), "\x00", " "))
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes still running after the test: %q", alive)
			return
		}
		time.Sleep(50 * time.Millisecond) // a killed process takes a moment to be reaped
	}
}

// startServer runs an HTTP server command, waits until addr accepts connections, and
// stops it (and checks it is gone) when the test ends.
func startServer(t *testing.T, addr string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		noSurvivors(t, name)
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %s", name, addr, stderr.String())
		}
		time.Sleep(50 * time.Millisecond) // polling the port is the only readiness signal
	}
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
	startServer(t, addr, exe, "-http", addr)
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
