package oauth_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitty/elicitty/transport/oauth"
	"github.com/elicitty/elicitty/transport/oauth/oauthtest"
)

// TestStoreRepairsOpenMode: a token file others can read is made 0600 again, with a
// warning naming the file and the old mode, and its tokens still load.
func TestStoreRepairsOpenMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oauth-tokens.json")
	if err := oauth.NewStore(path).Save(oauth.Entry{Server: "a", Resource: "r", AccessToken: "tok-secret"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	s := oauth.NewFileStore(path, &oauth.StoreOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	if _, ok, err := s.Load("a", "r"); err != nil || !ok {
		t.Fatalf("load after repair: %v, %v", ok, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after load: %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], path) || !strings.Contains(warnings[0], "0644") {
		t.Errorf("warnings = %q; want one naming the file and mode 0644", warnings)
	}
	if strings.Contains(strings.Join(warnings, ""), "tok-secret") {
		t.Error("the warning quotes a token")
	}
}

// TestStoreRefusesForeignOwner: a token file owned by another user is not used.
func TestStoreRefusesForeignOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	path := filepath.Join(t.TempDir(), "oauth-tokens.json")
	if err := oauth.NewStore(path).Save(oauth.Entry{Server: "a", Resource: "r", AccessToken: "tok"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, ok, err := oauth.NewStore(path).Load("a", "r")
	if err == nil || ok || !strings.Contains(err.Error(), "owned by another user") {
		t.Errorf("load of a foreign file = %v, %v; want a refusal", ok, err)
	}
}

// TestUnreadableStoreFailsLoudly: a store that cannot be read stops the connection
// with an error naming the step, instead of signing in again on every run.
func TestUnreadableStoreFailsLoudly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oauth-tokens.json")
	if err := os.WriteFile(path, []byte(`{"entries": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := oauth.NewHandler(oauth.Options{Server: "s", Resource: "https://s.test/mcp", Store: oauth.NewStore(path), Browser: oauth.NoWaitBrowser{}})
	var oe *oauth.Error
	if !errors.As(err, &oe) || oe.Step != oauth.StepStore || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("NewHandler with a broken store = %v; want a token storage error", err)
	}
}

// failingStore loads nothing and cannot save.
type failingStore struct{}

func (failingStore) Load(string, string) (oauth.Entry, bool, error) { return oauth.Entry{}, false, nil }
func (failingStore) Save(oauth.Entry) error                         { return errors.New("disk full") }
func (failingStore) Delete(string, string) (int, error)             { return 0, nil }
func (failingStore) Where() string                                  { return "nowhere" }

// TestUnsavableTokenFailsLoudly: a sign-in whose token cannot be stored fails with an
// error that says so; it does not quietly work once and sign in again next run.
func TestUnsavableTokenFailsLoudly(t *testing.T) {
	srv := oauthtest.New(t, oauthtest.Config{})
	s, err := connect(t, srv, oauth.Options{Store: failingStore{}})
	if err == nil {
		_, err = s.echo(t, "hi")
	}
	if err == nil || !strings.Contains(err.Error(), "token storage") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("connect with a store that cannot save = %v; want a token storage error\n%s", err, s.notes)
	}
}
