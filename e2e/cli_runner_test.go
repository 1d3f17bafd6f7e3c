package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/testkit/tmuxterm"
)

// fakeNPX writes an `npx` that waits until the file gate exists (a download in
// progress) and then runs the demo server; it returns the PATH that finds it first.
func fakeNPX(t *testing.T, gate string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nwhile [ ! -e '" + gate + "' ]; do sleep 0.05; done\nexec '" + bin + "' serve-demo\n"
	if err := os.WriteFile(filepath.Join(dir, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// TestPackageRunnerGetsRoomToDownload: a server started through npx that takes its
// time is shown still starting on stderr (how long so far, what it may be doing, which
// flag bounds it) and is waited for; when it does run out of time, the error names
// --handshake-timeout.
func TestPackageRunnerGetsRoomToDownload(t *testing.T) {
	if r := runBin(t, nil, "tools", "--help"); !strings.Contains(r.stdout, "120s for a server started through npx") {
		t.Errorf("--help does not give the package runners' handshake timeout:\n%s", r.stdout)
	}
	gate := filepath.Join(t.TempDir(), "downloaded")
	cmd := exec.Command(bin, "tools", "--", "npx", "-y", "@example/slow-server")
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1", "PATH="+fakeNPX(t, gate))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var stderr []string
	timeout := time.After(30 * time.Second)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stderr ended before the starting line:\n%s", strings.Join(stderr, "\n"))
			}
			stderr = append(stderr, l)
			if strings.Contains(l, "npx may be downloading it") {
				break wait
			}
		case <-timeout:
			t.Fatalf("no starting line within 30s:\n%s", strings.Join(stderr, "\n"))
		}
	}
	if l := stderr[len(stderr)-1]; !regexp.MustCompile(`^elicitty: starting "npx": \d+s \(npx may be downloading it; up to 2m0s, --handshake-timeout\)$`).MatchString(l) {
		t.Errorf("starting line %q", l)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		stderr = append(stderr, l)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &ee) || !strings.Contains(stdout.String(), "form_all_kinds") {
		t.Fatalf("tools after the download: %v\nstdout: %s\nstderr: %s", err, stdout.String(), strings.Join(stderr, "\n"))
	}

	r := runBin(t, []string{"PATH=" + fakeNPX(t, filepath.Join(t.TempDir(), "never"))}, "tools", "--handshake-timeout", "1s", "--", "npx", "-y", "@example/slow-server")
	if r.code != 4 || !strings.Contains(r.stderr, "did not answer initialize within 1s (npx may still have been downloading it); allow it longer with --handshake-timeout") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestTmuxStartingLineCountsSeconds: on a terminal, a stdio server still starting is
// shown on one stderr line that counts the seconds, cleared once it runs.
func TestTmuxStartingLineCountsSeconds(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "downloaded")
	tm := startTerm(t, tmuxterm.Options{StdoutToFile: true, Env: []string{"PATH=" + fakeNPX(t, gate)}},
		"tools", "--", "npx", "-y", "@example/slow-server")
	tm.WaitFor(`elicitty: starting "npx": 2s (npx may be downloading it; up to 2m0s)`)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout := tm.Wait()
	if code != 0 || !strings.Contains(stdout, "form_all_kinds") {
		t.Fatalf("exit %d, stdout:\n%s", code, stdout)
	}
	if s := tm.Screen(); strings.Contains(s, "starting") {
		t.Errorf("the starting line stayed on screen:\n%s", s)
	}
}
