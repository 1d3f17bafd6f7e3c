package inbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/testkit"
)

// hostEnv is what the TypeScript SDK passes to a server it starts: the proxy sees no
// XDG_RUNTIME_DIR and no TMPDIR.
var hostEnv = map[string]string{"HOME": "/home/ada", "LOGNAME": "ada", "PATH": "/usr/bin:/bin",
	"SHELL": "/bin/bash", "TERM": "xterm-256color", "USER": "ada"}

// fakeSystem is a machine of its own under a test directory: its /run/user (with the
// user's runtime directory when withRun) and its /tmp.
func fakeSystem(t *testing.T, withRun bool) (runUser, tmp string) {
	t.Helper()
	root := t.TempDir()
	runUser, tmp = filepath.Join(root, "run", "user"), filepath.Join(root, "tmp")
	for _, d := range []string{runUser, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if withRun {
		own := filepath.Join(runUser, strconv.Itoa(os.Getuid()))
		if err := os.Mkdir(own, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return runUser, tmp
}

// placesIn is the user's Places on the fake system under env.
func placesIn(runUser, tmp string, env map[string]string) Places {
	return Places{Getenv: func(k string) string { return env[k] }, UID: os.Getuid(), RunUser: runUser, Tmp: tmp}
}

// with returns env plus the pairs kv.
func with(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// TestProxyAndInboxMeetWhateverTheEnvironment: a proxy started by a host with a
// stripped environment and an inbox started from the user's shell (XDG_RUNTIME_DIR,
// TMPDIR set) find each other, on a desktop (a /run/user/UID of the user's) and on a
// machine without one; an ask of the proxy reaches the inbox and its answer comes back.
func TestProxyAndInboxMeetWhateverTheEnvironment(t *testing.T) {
	for _, withRun := range []bool{true, false} {
		name := "no /run/user/UID"
		if withRun {
			name = "desktop"
		}
		t.Run(name, func(t *testing.T) {
			runUser, tmp := fakeSystem(t, withRun)
			own := filepath.Join(runUser, strconv.Itoa(os.Getuid()))
			shellTmp := privateDir(t)
			proxies := map[string]map[string]string{
				"stripped":        hostEnv,
				"with XDG":        with(hostEnv, "XDG_RUNTIME_DIR", own),
				"with its TMPDIR": with(hostEnv, "TMPDIR", shellTmp),
			}
			inboxes := map[string]map[string]string{
				"shell":      with(hostEnv, "XDG_RUNTIME_DIR", own, "TMPDIR", shellTmp),
				"XDG only":   with(hostEnv, "XDG_RUNTIME_DIR", own),
				"bare":       hostEnv,
				"other XDG":  with(hostEnv, "XDG_RUNTIME_DIR", filepath.Join(tmp, "elsewhere")),
				"TMPDIR too": with(hostEnv, "TMPDIR", shellTmp),
			}
			for pn, penv := range proxies {
				dir := placesIn(runUser, tmp, penv).ProxyDir()
				if withRun && dir != filepath.Join(own, "elicitty") {
					t.Errorf("proxy %s: listens in %s, want the user's runtime directory", pn, dir)
				}
				if !withRun && dir != filepath.Join(tmp, "elicitty-"+strconv.Itoa(os.Getuid())) {
					t.Errorf("proxy %s: listens in %s, want elicitty-UID in the temporary directory", pn, dir)
				}
				for in, ienv := range inboxes {
					if search := placesIn(runUser, tmp, ienv).Search(); !slices.Contains(search, dir) {
						t.Errorf("proxy %s listens in %s; inbox %s looks in %v", pn, dir, in, search)
					}
				}
			}

			// The stripped proxy and the shell's inbox, for real.
			dir, err := placesIn(runUser, tmp, hostEnv).RuntimeDir()
			if err != nil {
				t.Fatal(err)
			}
			b, err := Listen(dir, BrokerOptions{Host: "Claude Desktop", Server: "github"})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			search := placesIn(runUser, tmp, inboxes["shell"]).Search()
			go func() {
				done <- WatchDirs(ctx, search, AnswerWith(elicit.AnswererFunc(func(context.Context, *elicit.Request) (elicit.Response, error) {
					return elicit.Response{Action: elicit.Accept, Content: map[string]any{"branch": "main"}}, nil
				})), &WatchOptions{Poll: 20 * time.Millisecond})
			}()
			defer func() { cancel(); <-done }()
			r, err := b.Answer(context.Background(), formReq)
			if err != nil || r.Action != elicit.Accept || r.Content["branch"] != "main" {
				t.Fatalf("Answer = %+v, %v", r, err)
			}
			if ps := ListDirs(context.Background(), search); len(ps) != 1 || ps[0].Socket != b.Path() {
				t.Errorf("ListDirs(%v) = %+v", search, ps)
			}
		})
	}
}

// TestProxyDirTakesOnlyTheUsersOwnRunDir: /run/user/UID is used only when it is a
// directory of the user's with mode 0700; $ELICITTY_RUNTIME_DIR wins on both sides.
func TestProxyDirTakesOnlyTheUsersOwnRunDir(t *testing.T) {
	runUser, tmp := fakeSystem(t, false)
	own := filepath.Join(runUser, strconv.Itoa(os.Getuid()))
	fallback := filepath.Join(tmp, "elicitty-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(own, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := placesIn(runUser, tmp, hostEnv).ProxyDir(); got != fallback {
		t.Errorf("with a 0755 /run/user/UID: %s, want %s", got, fallback)
	}
	if err := os.Remove(own); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tmp, own); err != nil {
		t.Fatal(err)
	}
	if got := placesIn(runUser, tmp, hostEnv).ProxyDir(); got != fallback {
		t.Errorf("with /run/user/UID a symlink: %s, want %s", got, fallback)
	}
	if os.Getuid() == 0 {
		if err := os.Remove(own); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(own, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(own, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if got := placesIn(runUser, tmp, hostEnv).ProxyDir(); got != fallback {
			t.Errorf("with another user's /run/user/UID: %s, want %s", got, fallback)
		}
	}
	env := with(hostEnv, "ELICITTY_RUNTIME_DIR", "/somewhere/else", "XDG_RUNTIME_DIR", own)
	if got := placesIn(runUser, tmp, env).ProxyDir(); got != "/somewhere/else" {
		t.Errorf("with ELICITTY_RUNTIME_DIR: %s", got)
	}
	if got := placesIn(runUser, tmp, env).Search(); !slices.Equal(got, []string{"/somewhere/else"}) {
		t.Errorf("with ELICITTY_RUNTIME_DIR the inbox looks in %v, want it alone", got)
	}
	env = with(hostEnv, "XDG_RUNTIME_DIR", own, "TMPDIR", tmp+"/")
	want := []string{filepath.Join(own, "elicitty"), fallback}
	if got := placesIn(runUser, tmp, env).Search(); !slices.Equal(got, want) {
		t.Errorf("Search = %v, want %v (no duplicates)", got, want)
	}
}

// TestWatchDirsFindsLateDirsAndSkipsRefusedOnes: an inbox started before any proxy
// attaches once the proxy's directory appears; a directory open to others is skipped
// with one line in the log, and Inspect says why.
func TestWatchDirsFindsLateDirsAndSkipsRefusedOnes(t *testing.T) {
	runUser, tmp := fakeSystem(t, true)
	places := placesIn(runUser, tmp, hostEnv)
	open := filepath.Join(tmp, "elicitty-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	log := &testkit.LockedBuffer{}
	h, ch := collect()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- WatchDirs(ctx, places.Search(), h, &WatchOptions{Poll: 20 * time.Millisecond, Log: log})
	}()
	defer func() { cancel(); <-done }()
	testkit.WaitFor(t, "the refusal in the log", func() bool { return strings.Contains(log.String(), "not looking in "+open) })

	got := places.Inspect()
	if len(got) != 2 || !got[0].Missing || got[1].Missing || !strings.Contains(got[1].Problem, "mode 0777") {
		t.Errorf("Inspect = %+v", got)
	}
	dir, err := places.RuntimeDir() // the proxy comes after the inbox
	if err != nil {
		t.Fatal(err)
	}
	b, err := Listen(dir, BrokerOptions{Host: "Cursor", Server: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	answered := answerAsync(b, context.Background(), formReq)
	a := recv(t, ch)
	if err := a.ask.Reply(elicit.Response{Action: elicit.Accept}); err != nil {
		t.Fatal(err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "not looking in "); n != 1 {
		t.Errorf("the refused directory was logged %d times:\n%s", n, log)
	}
	if got := places.Inspect(); got[0].Problem != "" {
		t.Errorf("Inspect after the proxy started = %+v", got)
	}
}
