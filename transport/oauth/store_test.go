package oauth_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/elicitty/elicitty/transport/oauth"
)

func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "elicitty")
	s := oauth.NewStore(filepath.Join(dir, "oauth-tokens.json"))
	a1 := oauth.Entry{Server: "a", Resource: "https://a.test/mcp", ClientID: "c", AccessToken: "tok-a1-secret"}
	a2 := oauth.Entry{Server: "a", Resource: "https://a.test/other", ClientID: "c", AccessToken: "tok-a2-secret"}
	b := oauth.Entry{Server: "b", Resource: "https://b.test/mcp", ClientID: "c", AccessToken: "tok-b-secret", RefreshToken: "ref-b-secret", ClientSecret: "cs-b-secret"}
	for _, e := range []oauth.Entry{a1, a2, b} {
		if err := s.Save(e); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("store directory: %v, mode %v; want 0700", err, fi.Mode().Perm())
	}
	b.AccessToken = "tok-b2-secret"
	if err := s.Save(b); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Load("b", "https://b.test/mcp")
	if err != nil || !ok {
		t.Fatalf("load b: %v, %v", ok, err)
	}
	if diff := cmp.Diff(b, got); diff != "" {
		t.Errorf("entry b (-want +got):\n%s", diff)
	}
	for _, out := range []string{got.String(), fmt.Sprintf("%v %+v %#v", got, got, got)} {
		for _, sec := range []string{"tok-b2-secret", "ref-b-secret", "cs-b-secret"} {
			if strings.Contains(out, sec) {
				t.Errorf("printed entry shows a secret: %s", out)
			}
		}
	}
	if n, err := s.Delete("a", ""); err != nil || n != 2 {
		t.Errorf("delete a = %d, %v; want 2", n, err)
	}
	if _, ok, _ := s.Load("a", a1.Resource); ok {
		t.Error("entry a survived delete")
	}
	if _, ok, _ := s.Load("b", b.Resource); !ok {
		t.Error("delete a removed b")
	}

	if err := os.WriteFile(s.Path(), []byte(`{"entries": [{"accessToken": "tok-broken-secret"`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Load("b", b.Resource)
	if err == nil || strings.Contains(err.Error(), "tok-broken-secret") {
		t.Errorf("load of a broken store = %v; want an error that does not quote it", err)
	}
	var none *oauth.Store
	if _, ok, err := none.Load("a", "x"); ok || err != nil {
		t.Errorf("nil store load = %v, %v", ok, err)
	}
}

func TestDefaultStorePath(t *testing.T) {
	env := map[string]string{"XDG_STATE_HOME": "/xdg"}
	tests := []struct {
		name string
		env  map[string]string
		home string
		want string
	}{
		{"xdg", env, "/home/u", filepath.Join("/xdg", "elicitty", "oauth-tokens.json")},
		{"home", nil, "/home/u", filepath.Join("/home/u", ".local", "state", "elicitty", "oauth-tokens.json")},
		{"nothing", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oauth.DefaultStorePath(func(k string) string { return tt.env[k] }, tt.home)
			if got != tt.want {
				t.Errorf("DefaultStorePath = %q, want %q", got, tt.want)
			}
		})
	}
}
