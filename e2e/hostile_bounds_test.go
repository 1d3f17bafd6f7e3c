package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/elicitty/elicitty/internal/cli"
)

// The bounds suite: one hostile case each, run through the binary, with the exit
// code, the wall time and the peak memory asserted. Each run is killed (and the test
// failed) at boundKill; a bound that holds ends it far sooner.
const (
	boundWall = 10 * time.Second
	boundRSS  = 200 << 10 // KiB
	boundKill = 30 * time.Second
)

// checkCost fails when the run took longer than boundWall or peaked above boundRSS
// (the child's max RSS: elicitty's, or a server process's it started).
func checkCost(t *testing.T, m measured) {
	t.Helper()
	if m.wall > boundWall {
		t.Errorf("took %s, want under %s", m.wall.Round(time.Millisecond), boundWall)
	}
	if m.maxRSS > boundRSS {
		t.Errorf("peak memory %d KiB, want under %d KiB", m.maxRSS, boundRSS)
	}
	t.Logf("exit %d in %s, peak %d KiB", m.code, m.wall.Round(time.Millisecond), m.maxRSS)
}

// checkRun checks a run's exit code, that its stderr says each of says, its cost, and
// that nothing raw was printed.
func checkRun(t *testing.T, m measured, code int, says ...string) {
	t.Helper()
	if m.code != code {
		t.Errorf("exit %d, want %d\nstderr: %.2000s", m.code, code, m.stderr)
	}
	for _, s := range says {
		if !strings.Contains(m.stderr, s) {
			t.Errorf("stderr does not say %q:\n%.2000s", s, m.stderr)
		}
	}
	checkCost(t, m)
	scanRaw(t, "stderr", m.stderr)
}

// TestHostileEndlessToolsCursor: a server whose tools/list always has a next page is
// listed up to the page and item caps, and the listing says it stopped.
func TestHostileEndlessToolsCursor(t *testing.T) {
	srv := hostileServer(t)
	for _, args := range [][]string{{"tools"}, {"tools", "--json"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			m := runMeasured(t, t.TempDir(), boundKill, append(args, "--", srv, "endlesspages")...)
			checkRun(t, m, cli.ExitConn, "tools/list: stopped after 500 pages (10000 items)")
		})
	}
	noHostileLeft(t)
}

// TestHostileTaskStaysWorking: a task that never leaves "working" is polled for
// --task-wait, then cancelled, and the call ends saying so and how to wait longer.
func TestHostileTaskStaysWorking(t *testing.T) {
	srv := hostileServer(t)
	m := runMeasured(t, t.TempDir(), boundKill, "call", "research", "--task-wait", "2s", "--", srv, "taskworking")
	checkRun(t, m, cli.ExitConn, `task t-1 still working after waiting 2s`, "--task-wait", "task t-1 cancelled")
	if m.wall < 2*time.Second {
		t.Errorf("ended after %s, before the 2s task wait", m.wall)
	}
	noHostileLeft(t)
}

// TestHostileGrowingRequestState: a server whose requestState grows 600 KiB a round is
// refused at the round that passes the 1 MiB cap, with the reason.
func TestHostileGrowingRequestState(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("- match: {}\n  action: accept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := runMeasured(t, dir, boundKill, "call", "x", "--answers", answers, "--", srv, "growstate")
	checkRun(t, m, cli.ExitConn, "refused the server's requestState of round 2: 1228800 bytes, over the limit of 1048576")
	noHostileLeft(t)
}

// TestHostileSamplingFlood: a sampling request of 200,000 messages (10 MB) is refused
// unread, before anything decodes its messages; the server is told why, and the
// answers file that would accept it is never asked.
func TestHostileSamplingFlood(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.yaml")
	if err := os.WriteFile(answers, []byte("- kind: sampling\n  action: accept\n  reply: {text: ok}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := runMeasured(t, dir, boundKill, "call", "x", "--answers", answers, "--", srv, "samplingflood")
	checkRun(t, m, cli.ExitOK, "refused a request unread: sampling request of 10600029 bytes refused: over the client's limit of 4194304")
	// The tool's result quotes the error the server got.
	if want := `sampled {"code":-32600,"message":"elicitty refused the request unread: sampling request of 10600029 bytes refused`; !strings.Contains(m.stdout, want) {
		t.Errorf("stdout does not show the server told of the refusal (%q):\n%.2000s", want, m.stdout)
	}
	if strings.Contains(m.stderr, "-> accept") {
		t.Errorf("the sampling request was answered:\n%.2000s", m.stderr)
	}
	noHostileLeft(t)
}

// headerRecorder is an HTTP server on 127.0.0.1 that records the credentials headers
// of each request it gets; when redirect is set it answers 307 to it.
type headerRecorder struct {
	mu   sync.Mutex
	got  []string // "Authorization=... X-Api-Key=..." per request
	url  string
	port string
}

func newHeaderRecorder(t *testing.T, redirect string) *headerRecorder {
	h := &headerRecorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.got = append(h.got, fmt.Sprintf("Authorization=%s X-Api-Key=%s", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key")))
		h.mu.Unlock()
		if redirect != "" {
			http.Redirect(w, r, redirect, http.StatusTemporaryRedirect)
			return
		}
		http.Error(w, "no MCP here", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL + "/mcp"
	_, h.port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	return h
}

func (h *headerRecorder) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

// TestHostileRedirectKeepsHeaders: a configured server answers 307 to another host;
// the config's headers (Authorization, X-Api-Key) go to the configured host only.
func TestHostileRedirectKeepsHeaders(t *testing.T) {
	other := newHeaderRecorder(t, "")
	// Another host: "localhost", not the configured "127.0.0.1" (and another port).
	front := newHeaderRecorder(t, "http://localhost:"+other.port+"/mcp")
	f := newFolder(t)
	cfg := filepath.Join(f.home, ".config", "elicitty", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	body := "servers:\n  api:\n    url: " + front.url + "\n    headers:\n      Authorization: Bearer s3cret-static\n      X-Api-Key: k-s3cret\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	m := f.run(t, boundKill, "tools", "api")
	checkRun(t, m, cli.ExitConn)
	const want = "Authorization=Bearer s3cret-static X-Api-Key=k-s3cret"
	fr := front.requests()
	if len(fr) == 0 || fr[0] != want {
		t.Errorf("the configured host got %q, want its headers (%q)", fr, want)
	}
	or := other.requests()
	if len(or) == 0 {
		t.Fatal("the redirect was not followed: the other host got no request")
	}
	for _, got := range or {
		if got != "Authorization= X-Api-Key=" {
			t.Errorf("the other host got %q, want no credentials", got)
		}
	}
	if strings.Contains(m.stdout+m.stderr, "s3cret") {
		t.Errorf("a header's value was printed:\n%s\n%s", m.stdout, m.stderr)
	}
}

// TestHostileTokenStoreFIFO: the token store's path is a FIFO; a command that needs
// it is refused at once, by name, instead of blocking on the open.
func TestHostileTokenStoreFIFO(t *testing.T) {
	f := newFolder(t)
	state := filepath.Join(f.home, "state")
	store := filepath.Join(state, "elicitty", "oauth-tokens.json")
	if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(store, 0o600); err != nil {
		t.Fatal(err)
	}
	f.env = append(f.env, "XDG_STATE_HOME="+state, "ELICITTY_TOKEN_STORE=file")
	// No server needed: the store is read before anything connects.
	m := f.run(t, boundKill, "tools", "http://127.0.0.1:1/mcp")
	checkRun(t, m, cli.ExitConn, "oauth-tokens.json is a named pipe (FIFO); refusing to use it")
}

// TestHostileLogSymlink: --log naming a symlink is refused (exit 2) and the link's
// target is left as it was.
func TestHostileLogSymlink(t *testing.T) {
	srv := hostileServer(t)
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "wire.jsonl")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	m := runMeasured(t, dir, boundKill, "tools", "--log", link, "--", srv, "payload")
	checkRun(t, m, cli.ExitUsage, "is a symbolic link; refusing to write to it")
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep\n" {
		t.Errorf("the link's target now holds %q (%v), want it untouched", b, err)
	}
	if fi, err := os.Stat(target); err == nil && fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target's mode changed to %v", fi.Mode().Perm())
	}
	noHostileLeft(t)
}
