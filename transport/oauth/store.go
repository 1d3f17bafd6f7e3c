package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/elicitty/elicitty/internal/boundedfile"
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
// directory and replaced atomically on each change. A file that other users may read
// is made 0600 again (and Warn told), and so is a directory they may list; a file
// owned by another user, a directory they may write to, and a symbolic link, FIFO,
// device or anything else but a regular file at the path are refused by name (never
// followed, never waited on). A nil *Store keeps nothing. It is safe for concurrent
// use within one process.
type Store struct {
	path string
	warn func(string)
	mu   sync.Mutex
}

// StoreOptions configures a file Store.
type StoreOptions struct {
	// Warn receives a message when the store repairs its file's permissions; nil
	// drops it.
	Warn func(msg string)
}

// NewStore returns a Store backed by the file at path (created on first save).
func NewStore(path string) *Store { return NewFileStore(path, nil) }

// NewFileStore is NewStore with options; nil means the defaults.
func NewFileStore(path string, opts *StoreOptions) *Store {
	s := &Store{path: path}
	if opts != nil {
		s.warn = opts.Warn
	}
	return s
}

// Where implements TokenStore.
func (s *Store) Where() string {
	if s == nil {
		return "memory only"
	}
	return s.path
}

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
	fi, err := os.Lstat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return storeFile{Version: 1}, nil
	}
	if err != nil {
		return f, fmt.Errorf("read token store: %w", err)
	}
	if err := s.regular(fi); err != nil {
		return f, err
	}
	if err := s.checkDir(); err != nil {
		return f, err
	}
	// noFollow: a symlink or FIFO put there since the Lstat fails, and does not block.
	fh, err := os.OpenFile(s.path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return f, fmt.Errorf("read token store: %w", err)
	}
	defer fh.Close()
	if err := s.check(fh); err != nil {
		return f, err
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxStoreSize+1))
	if err != nil {
		return f, fmt.Errorf("read token store: %w", err)
	}
	if len(data) > maxStoreSize {
		return f, fmt.Errorf("token store %s is larger than %d bytes; remove it and sign in again", s.path, maxStoreSize)
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
	if err := s.checkDir(); err != nil {
		return err
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

// maxStoreSize bounds the token file: a few hundred sign-ins fit.
const maxStoreSize = 4 << 20

// check refuses a token file owned by another user, or anything but a regular file,
// and makes one that others may read or write private again, with a warning.
func (s *Store) check(fh *os.File) error {
	fi, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("read token store: %w", err)
	}
	if err := s.regular(fi); err != nil {
		return err
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("token store %s is owned by another user (uid %d); refusing to use it: remove it, or give it to your user with mode 0600", s.path, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		if err := fh.Chmod(0o600); err != nil {
			return fmt.Errorf("token store %s has mode %04o, readable by others, and could not be made 0600: %w", s.path, perm, err)
		}
		if s.warn != nil {
			s.warn(fmt.Sprintf("token store %s had mode %04o, so other users could read its tokens; it is now 0600. Consider `elicitty logout` for its servers and signing in again.", s.path, perm))
		}
	}
	return nil
}

// regular refuses anything but a regular file at the store's path, by name.
func (s *Store) regular(fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	what := boundedfile.Kind(m)
	return fmt.Errorf("token store %s is %s; refusing to use it: remove it, and the next sign-in creates the file", s.path, what)
}

// checkDir refuses a token directory other users may write to (they could replace
// the file) or that belongs to another user, and makes one they may list 0700 again,
// with a warning.
func (s *Store) checkDir() error {
	dir := filepath.Dir(s.path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("token store directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("token store directory %s is not a directory", dir)
	}
	uid, ok := fileOwner(fi)
	if !ok {
		return nil // no Unix owner and modes (Windows): ACLs apply
	}
	if uid != os.Getuid() {
		return fmt.Errorf("token store directory %s is owned by another user (uid %d); refusing to use it: keep the tokens in a directory of your own with mode 0700", dir, uid)
	}
	perm := fi.Mode().Perm()
	if perm&0o022 != 0 {
		return fmt.Errorf("token store directory %s has mode %04o: other users could replace the token file; refusing to use it (chmod 700 %s)", dir, perm, dir)
	}
	if perm&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("token store directory %s has mode %04o, open to other users, and could not be made 0700: %w", dir, perm, err)
		}
		if s.warn != nil {
			s.warn(fmt.Sprintf("token store directory %s had mode %04o, so other users could list it; it is now 0700", dir, perm))
		}
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
