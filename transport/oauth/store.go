package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Entry is what a Store keeps for one server and resource: the client the token was
// issued to (needed to refresh it) and the token itself. Its String never shows secrets.
type Entry struct {
	Server       string           `json:"server"`
	Resource     string           `json:"resource"`
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	TokenURL     string           `json:"tokenUrl"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	AccessToken  string           `json:"accessToken"`
	RefreshToken string           `json:"refreshToken,omitempty"`
	TokenType    string           `json:"tokenType,omitempty"`
	Expiry       time.Time        `json:"expiry,omitzero"`
	Saved        time.Time        `json:"saved"`
}

// String describes the entry without its secrets.
func (e Entry) String() string {
	exp := "no expiry"
	if !e.Expiry.IsZero() {
		exp = "expires " + e.Expiry.UTC().Format(time.RFC3339)
	}
	refresh := ""
	if e.RefreshToken != "" {
		refresh = ", refreshable"
	}
	return fmt.Sprintf("token for %s (%s; %s%s)", e.Server, e.Resource, exp, refresh)
}

// GoString is like String, so that %#v shows no secret either.
func (e Entry) GoString() string { return "oauth.Entry{" + e.String() + "}" }

func (e Entry) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: e.AccessToken, RefreshToken: e.RefreshToken, TokenType: e.TokenType, Expiry: e.Expiry}
}

// Store keeps tokens in one JSON file, created with 0600 permissions in a 0700
// directory and replaced atomically on each change. A nil *Store keeps nothing. It is
// safe for concurrent use within one process.
type Store struct {
	path string
	mu   sync.Mutex
}

// NewStore returns a Store backed by the file at path (created on first save).
func NewStore(path string) *Store { return &Store{path: path} }

// DefaultStorePath returns $XDG_STATE_HOME/elicitty/oauth-tokens.json, or
// HOME/.local/state/elicitty/oauth-tokens.json; "" when neither is known.
func DefaultStorePath(getenv func(string) string, home string) string {
	dir := getenv("XDG_STATE_HOME")
	if dir == "" {
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "elicitty", "oauth-tokens.json")
}

// Path returns the file the store uses.
func (s *Store) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

type storeFile struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

func (s *Store) read() (storeFile, error) {
	var f storeFile
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return storeFile{Version: 1}, nil
	}
	if err != nil {
		return f, fmt.Errorf("read token store: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		// Never quote the content: it holds tokens.
		return f, fmt.Errorf("token store %s is not valid JSON", s.path)
	}
	return f, nil
}

func (s *Store) write(f storeFile) error {
	f.Version = 1
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode token store: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create token store directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".oauth-tokens-*")
	if err != nil {
		return fmt.Errorf("write token store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write token store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("write token store: %w", err)
	}
	return nil
}

// Load returns the entry of server and resource; ok is false when there is none.
func (s *Store) Load(server, resource string) (e Entry, ok bool, err error) {
	if s == nil {
		return Entry{}, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return Entry{}, false, err
	}
	for _, e := range f.Entries {
		if e.Server == server && e.Resource == resource {
			return e, true, nil
		}
	}
	return Entry{}, false, nil
}

// Save adds or replaces the entry of e.Server and e.Resource.
func (s *Store) Save(e Entry) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	f.Entries = slices.DeleteFunc(f.Entries, func(x Entry) bool { return x.Server == e.Server && x.Resource == e.Resource })
	f.Entries = append(f.Entries, e)
	return s.write(f)
}

// Delete removes the entries of server: every resource when resource is "", else that
// one. It returns how many were removed.
func (s *Store) Delete(server, resource string) (int, error) {
	if s == nil {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return 0, err
	}
	n := len(f.Entries)
	f.Entries = slices.DeleteFunc(f.Entries, func(x Entry) bool {
		return x.Server == server && (resource == "" || x.Resource == resource)
	})
	removed := n - len(f.Entries)
	if removed == 0 {
		return 0, nil
	}
	return removed, s.write(f)
}
