package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
)

// runSignIn runs the binary headless and plays the user: when the command prints a
// sign-in URL on stderr, it follows it like a browser that approves at once.
func runSignIn(t *testing.T, env []string, args ...string) (res result, signIns int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			stderr.WriteString(line + "\n")
			if strings.HasPrefix(line, "http://127.0.0.1:") && strings.Contains(line, "/authorize?") {
				signIns++
				if err := (oauth.FollowBrowser{}).SignIn(ctx, oauth.SignIn{URL: line}); err != nil {
					t.Errorf("follow sign-in URL: %v", err)
				}
			}
		}
	}()
	wg.Wait()
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		res.code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	res.stdout, res.stderr = stdout.String(), stderr.String()
	return res, signIns
}

// noSecrets fails the test when any token, refresh token, code or client secret the
// fixture issued appears in one of the texts.
func noSecrets(t *testing.T, srv *oauthtest.Server, texts map[string]string) {
	t.Helper()
	for _, sec := range srv.Secrets() {
		for name, text := range texts {
			if strings.Contains(text, sec) {
				t.Errorf("%s shows a secret issued by the server (%.6s...)", name, sec)
			}
		}
	}
}

func TestOAuthSignInHeadlessNeverShowsTokens(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{ScopesSupported: []string{"read"}})
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	logPath := filepath.Join(t.TempDir(), "wire.jsonl")

	res, n := runSignIn(t, env, "call", srv.URL, "echo", "text=hi", "--json", "--log", logPath, "--timeout", "20s")
	if res.code != 0 || n != 1 {
		t.Fatalf("exit %d after %d sign-ins, want 0 after 1\nstdout: %s\nstderr: %s", res.code, n, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "echo: hi") {
		t.Errorf("stdout = %q, want the tool result", res.stdout)
	}
	logData, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	storePath := filepath.Join(state, "elicitty", "oauth-tokens.json")
	fi, err := os.Stat(storePath)
	if err != nil {
		t.Fatalf("token store: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token store mode %v, want 0600", fi.Mode().Perm())
	}
	noSecrets(t, srv, map[string]string{"--json output": res.stdout, "stderr": res.stderr, "wire log": string(logData)})

	// The stored token serves the next run without a sign-in.
	res, n = runSignIn(t, env, "tools", srv.URL, "--json")
	if res.code != 0 || n != 0 {
		t.Fatalf("second run: exit %d after %d sign-ins, want 0 after 0\nstderr: %s", res.code, n, res.stderr)
	}
	noSecrets(t, srv, map[string]string{"second --json output": res.stdout, "second stderr": res.stderr})

	// logout forgets it; --no-wait then fails with exit 4 instead of waiting.
	res = runBin(t, env, "logout", srv.URL)
	if res.code != 0 || !strings.Contains(res.stdout, "Signed out of") {
		t.Fatalf("logout: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	res = runBin(t, env, "tools", srv.URL, "--no-wait")
	if res.code != 4 || !strings.Contains(res.stderr, "sign-in required") {
		t.Errorf("--no-wait: exit %d, stderr %q; want exit 4 and \"sign-in required\"", res.code, res.stderr)
	}
}

func TestOAuthErrorsNameTheStepWithoutSecrets(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{FailExchange: true})
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	res, n := runSignIn(t, env, "tools", srv.URL, "--json", "--timeout", "20s")
	if res.code != 4 || n != 1 {
		t.Fatalf("exit %d after %d sign-ins, want 4 after 1\nstderr: %s", res.code, n, res.stderr)
	}
	if !strings.Contains(res.stderr, "failed at token exchange: invalid_grant") {
		t.Errorf("stderr %q does not name the step and the server's error code", res.stderr)
	}
	noSecrets(t, srv, map[string]string{"stdout": res.stdout, "stderr": res.stderr})

	reg := oauthtest.New(t, oauthtest.Config{FailRegistration: true})
	res = runBin(t, env, "tools", reg.URL)
	if res.code != 4 || !strings.Contains(res.stderr, "failed at registration: invalid_client_metadata") {
		t.Errorf("registration failure: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestLoginAndLogout(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{})
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	res, n := runSignIn(t, env, "login", srv.URL, "--timeout", "20s")
	if res.code != 0 || n != 1 || !strings.Contains(res.stdout, "Signed in to") {
		t.Fatalf("login: exit %d after %d sign-ins, stdout %q, stderr %q", res.code, n, res.stdout, res.stderr)
	}
	noSecrets(t, srv, map[string]string{"login stdout": res.stdout, "login stderr": res.stderr})
	res = runBin(t, env, "logout", srv.URL)
	if res.code != 0 || !strings.Contains(res.stdout, "1 stored token") {
		t.Errorf("logout: exit %d, stdout %q", res.code, res.stdout)
	}
	res = runBin(t, env, "logout", srv.URL)
	if res.code != 0 || !strings.Contains(res.stdout, "No stored sign-in") {
		t.Errorf("second logout: exit %d, stdout %q", res.code, res.stdout)
	}
}
