package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// KeyringService is the service name elicitty's tokens are kept under in the OS keyring.
const KeyringService = "elicitty"

// keyringTimeout bounds each keyring operation: a locked keyring on a machine nobody
// watches would otherwise wait for an unlock prompt forever.
const keyringTimeout = 15 * time.Second

// TokenStore keeps OAuth tokens between runs: a *Store (a 0600 file) or a *Keyring.
type TokenStore interface {
	// Load returns the entry of server and resource; ok is false when there is none.
	Load(server, resource string) (e Entry, ok bool, err error)
	// Save adds or replaces the entry of e.Server and e.Resource.
	Save(e Entry) error
	// Delete removes the entries of server: every resource when resource is "", else
	// that one. It returns how many were removed.
	Delete(server, resource string) (int, error)
	// Where describes where the tokens are kept, for messages and doctor.
	Where() string
}

var (
	_ TokenStore = (*Store)(nil)
	_ TokenStore = (*Keyring)(nil)
)

// Keyring keeps tokens in the OS keyring (macOS Keychain, Windows Credential Manager,
// the freedesktop Secret Service): one item per server, holding the entries of all its
// resources. It is safe for concurrent use within one process.
type Keyring struct {
	service string
	mu      sync.Mutex
}

// NewKeyring returns a Keyring that uses service ("" means KeyringService).
func NewKeyring(service string) *Keyring {
	if service == "" {
		service = KeyringService
	}
	return &Keyring{service: service}
}

// Where implements TokenStore.
func (k *Keyring) Where() string { return "the OS keyring (service " + k.service + ")" }

func (k *Keyring) user(server string) string { return "oauth:" + server }

func (k *Keyring) read(server string) ([]Entry, error) {
	data, err := bounded(keyringTimeout, func() (string, error) { return keyring.Get(k.service, k.user(server)) })
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the OS keyring: %w", err)
	}
	var f storeFile
	if err := json.Unmarshal([]byte(data), &f); err != nil {
		// Never quote the content: it holds tokens.
		return nil, fmt.Errorf("the OS keyring's item %s/%s is not valid JSON", k.service, k.user(server))
	}
	return f.Entries, nil
}

func (k *Keyring) write(server string, entries []Entry) error {
	var err error
	if len(entries) == 0 {
		_, err = bounded(keyringTimeout, func() (string, error) { return "", keyring.Delete(k.service, k.user(server)) })
		if errors.Is(err, keyring.ErrNotFound) {
			err = nil
		}
	} else {
		data, merr := json.Marshal(storeFile{Version: 1, Entries: entries})
		if merr != nil {
			return fmt.Errorf("encode token: %w", merr)
		}
		_, err = bounded(keyringTimeout, func() (string, error) { return "", keyring.Set(k.service, k.user(server), string(data)) })
	}
	if err != nil {
		return fmt.Errorf("write the OS keyring: %w", err)
	}
	return nil
}

// Load implements TokenStore.
func (k *Keyring) Load(server, resource string) (Entry, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	entries, err := k.read(server)
	if err != nil {
		return Entry{}, false, err
	}
	for _, e := range entries {
		if e.Resource == resource {
			return e, true, nil
		}
	}
	return Entry{}, false, nil
}

// Save implements TokenStore.
func (k *Keyring) Save(e Entry) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	entries, err := k.read(e.Server)
	if err != nil {
		return err
	}
	entries = slices.DeleteFunc(entries, func(x Entry) bool { return x.Resource == e.Resource })
	return k.write(e.Server, append(entries, e))
}

// Delete implements TokenStore.
func (k *Keyring) Delete(server, resource string) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	entries, err := k.read(server)
	if err != nil {
		return 0, err
	}
	n := len(entries)
	entries = slices.DeleteFunc(entries, func(x Entry) bool { return resource == "" || x.Resource == resource })
	if removed := n - len(entries); removed > 0 {
		return removed, k.write(server, entries)
	}
	return 0, nil
}

// bounded runs a keyring operation for at most d.
func bounded(d time.Duration, op func() (string, error)) (string, error) {
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := op()
		ch <- result{s, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-t.C:
		return "", fmt.Errorf("no answer within %s (is the keyring locked?)", d)
	}
}
