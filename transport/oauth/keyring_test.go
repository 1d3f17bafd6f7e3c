package oauth_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zalando/go-keyring"

	"github.com/elicitty/elicitty/transport/oauth"
)

// exerciseStore saves, replaces, loads and deletes entries of two servers.
func exerciseStore(t *testing.T, s oauth.TokenStore) {
	t.Helper()
	a1 := oauth.Entry{Server: "a", Resource: "https://a.test/mcp", ClientID: "c", AccessToken: "tok-a1-secret", Saved: time.Unix(1, 0).UTC()}
	a2 := oauth.Entry{Server: "a", Resource: "https://a.test/other", ClientID: "c", AccessToken: "tok-a2-secret", Saved: time.Unix(2, 0).UTC()}
	b := oauth.Entry{Server: "b", Resource: "https://b.test/mcp", ClientID: "c", AccessToken: "tok-b-secret", RefreshToken: "ref-b-secret", Saved: time.Unix(3, 0).UTC()}
	for _, e := range []oauth.Entry{a1, a2, b} {
		if err := s.Save(e); err != nil {
			t.Fatalf("save %s: %v", e, err)
		}
	}
	b.AccessToken = "tok-b2-secret"
	if err := s.Save(b); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Load("b", b.Resource)
	if err != nil || !ok {
		t.Fatalf("load b: %v, %v", ok, err)
	}
	if diff := cmp.Diff(b, got); diff != "" {
		t.Errorf("entry b (-want +got):\n%s", diff)
	}
	if n, err := s.Delete("a", a2.Resource); err != nil || n != 1 {
		t.Errorf("delete a/other = %d, %v; want 1", n, err)
	}
	if _, ok, _ := s.Load("a", a1.Resource); !ok {
		t.Error("deleting one resource of a removed the other")
	}
	if n, err := s.Delete("a", ""); err != nil || n != 1 {
		t.Errorf("delete a = %d, %v; want 1", n, err)
	}
	if _, ok, err := s.Load("a", a1.Resource); ok || err != nil {
		t.Errorf("entry a after delete: %v, %v", ok, err)
	}
	if n, err := s.Delete("b", ""); err != nil || n != 1 {
		t.Errorf("delete b = %d, %v", n, err)
	}
	if n, err := s.Delete("nobody", ""); err != nil || n != 0 {
		t.Errorf("delete of nothing = %d, %v", n, err)
	}
}

func TestKeyringStoreMock(t *testing.T) {
	keyring.MockInit()
	exerciseStore(t, oauth.NewKeyring("elicitty-test"))
}

func TestFileStoreAsTokenStore(t *testing.T) {
	exerciseStore(t, oauth.NewStore(filepath.Join(t.TempDir(), "oauth-tokens.json")))
}

func TestChooseStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oauth-tokens.json")
	up := func() error { return nil }
	down := func() error { return errors.New("no D-Bus session bus") }
	tests := []struct {
		mode    string
		probe   func() error
		want    string // "keyring", "file" or "error"
		because string
	}{
		{"", up, "keyring", "a keyring service answers"},
		{"", down, "file", "no OS keyring: no D-Bus session bus"},
		{"auto", down, "file", "no OS keyring"},
		{"file", up, "file", "ELICITTY_TOKEN_STORE=file"},
		{"keyring", up, "keyring", "ELICITTY_TOKEN_STORE=keyring"},
		{"keyring", down, "error", "keyring, but the OS keyring is unavailable"},
		{"vault", up, "error", "must be auto, keyring or file"},
	}
	for _, tt := range tests {
		c, err := oauth.ChooseStore(&oauth.ChooseOptions{Mode: tt.mode, Path: path, Probe: tt.probe})
		got, why := "error", ""
		if err != nil {
			why = err.Error()
		} else {
			why = c.Reason
			switch c.Store.(type) {
			case *oauth.Keyring:
				got = "keyring"
			case *oauth.Store:
				got = "file"
			}
		}
		if got != tt.want || !strings.Contains(why, tt.because) {
			t.Errorf("mode %q: %s (%s); want %s (%s)", tt.mode, got, why, tt.want, tt.because)
		}
	}
	// Without a bus nothing is started or asked: the probe says so at once.
	c, err := oauth.ChooseStore(&oauth.ChooseOptions{Path: path, Getenv: func(string) string { return "" }})
	if err == nil && c.Reason != "a keyring service answers" && !strings.Contains(c.Reason, "no D-Bus session bus") && !strings.Contains(c.Reason, "no OS keyring") {
		t.Errorf("no bus: %q", c.Reason)
	}
}

// TestKeyringSecretService stores tokens in a real Secret Service: gnome-keyring on a
// private D-Bus session (dbus-run-session), with its keyring files in a temporary
// HOME. The test binary re-runs itself inside that session.
func TestKeyringSecretService(t *testing.T) {
	if os.Getenv("ELICITTY_KEYRING_CHILD") == "1" {
		secretServiceChild(t)
		return
	}
	if testing.Short() {
		t.Skip("starts a session bus and gnome-keyring: the full tier runs it")
	}
	for _, prog := range []string{"dbus-run-session", "dbus-send", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(prog); err != nil {
			if os.Getenv("ELICITTY_E2E") != "" {
				t.Fatalf("%s is missing (scripts/setup.sh installs it)", prog)
			}
			t.Skipf("%s is missing (scripts/setup.sh installs it)", prog)
		}
	}
	home := t.TempDir()
	// The daemon runs in the foreground under the session and is stopped before the
	// session ends; the session's bus goes away with dbus-run-session.
	script := `set -eu
printf 'elicitty-test' | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null || true' EXIT
# Until this daemon owns the Secret Service name, a client would make the bus start
# another one, with a locked keyring; wait for it (bounded).
i=0
until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
  org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; do
  i=$((i+1))
  if [ $i -gt 200 ]; then echo "gnome-keyring-daemon did not register" >&2; exit 1; fi
  sleep 0.1
done
"$@"
`
	cmd := exec.Command("dbus-run-session", "--", "sh", "-c", script, "sh",
		os.Args[0], "-test.run", "^TestKeyringSecretService$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "ELICITTY_KEYRING_CHILD=1", "HOME="+home,
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_RUNTIME_DIR="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
	cmd.Dir = home
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestKeyringSecretService") {
		t.Fatalf("in a D-Bus session with gnome-keyring: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, "data", "keyrings")); err != nil {
		t.Errorf("gnome-keyring kept no keyring under the test's HOME: %v", err)
	}
}

func secretServiceChild(t *testing.T) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Fatal("no session bus in the child")
	}
	// The daemon registers on the bus shortly after it starts.
	var c oauth.Choice
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		c, err = oauth.ChooseStore(&oauth.ChooseOptions{Path: filepath.Join(t.TempDir(), "f.json"), Service: "elicitty-test"})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Store.(*oauth.Keyring); ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // polling the bus for the daemon's name
	}
	if _, ok := c.Store.(*oauth.Keyring); !ok {
		t.Fatalf("ChooseStore picked %s (%s), want the keyring", c.Store.Where(), c.Reason)
	}
	exerciseStore(t, c.Store)
	// What the Secret Service holds is the entry, under the service and server.
	k := c.Store.(*oauth.Keyring)
	if err := k.Save(oauth.Entry{Server: "srv", Resource: "https://srv.test/mcp", AccessToken: "tok-in-keyring"}); err != nil {
		t.Fatal(err)
	}
	raw, err := keyring.Get("elicitty-test", "oauth:srv")
	if err != nil || !strings.Contains(raw, "tok-in-keyring") {
		t.Errorf("keyring item oauth:srv = %v; want the stored token", err)
	}
	if n, err := k.Delete("srv", ""); err != nil || n != 1 {
		t.Errorf("delete = %d, %v", n, err)
	}
	if _, err := keyring.Get("elicitty-test", "oauth:srv"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("keyring item after logout: %v; want not found", err)
	}
}
