package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/elicitty/elicitty/internal/boundedfile"
)

// ErrUntrusted is the reason a server from an untrusted project folder cannot start;
// the error is an *UntrustedError.
var ErrUntrusted = errors.New("project folder not trusted")

// UntrustedError says a server comes from a project folder the user has not trusted
// (or whose files changed since), and how to trust it. errors.Is(err, ErrUntrusted)
// holds.
type UntrustedError struct {
	// Server is the server's name.
	Server string
	// Dir is the project folder.
	Dir string
}

// Error says which folder and how to trust it.
func (e *UntrustedError) Error() string {
	return fmt.Sprintf("untrusted: server %q is from the project folder %s, not trusted yet or changed since: review and trust it with `elicitty trust %s`, or run with --trust",
		e.Server, e.Dir, shellQuote(e.Dir))
}

// Is reports whether target is ErrUntrusted.
func (e *UntrustedError) Is(target error) bool { return target == ErrUntrusted }

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == ',' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Project is a folder's project-scope server files (.cursor/mcp.json, .mcp.json,
// .vscode/mcp.json and .gemini/settings.json: the files a cloned repository can bring)
// and whether the user trusts them. The zero value is a folder with no such files.
type Project struct {
	// Dir is the folder, absolute, with symlinks resolved.
	Dir string
	// Files are the project files present, in layering order.
	Files []ProjectFile
	// Trusted reports that the trust store holds Dir with the digest of every file in
	// Files (true when Files is empty: there is nothing to trust).
	Trusted bool
}

// ProjectFile is one project-scope server file as Load read it.
type ProjectFile struct {
	// Path is the file's path; Name is Path relative to the folder (".vscode/mcp.json").
	Path, Name string
	// Digest is "sha256:" and the hex SHA-256 of the bytes read.
	Digest string
}

// digest is the trust store's digest of a file's bytes.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// projectDir is the absolute folder of work, symlinks resolved when possible.
func projectDir(work string) string {
	dir, err := filepath.Abs(work)
	if err != nil {
		dir = work
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// TrustFile returns the path of the folder-trust store: $ConfigDir/elicitty/trust.json,
// or "" when there is no config directory.
func (o LoadOptions) TrustFile() string {
	o = o.withDefaults()
	if o.ConfigDir == "" {
		return ""
	}
	return filepath.Join(o.ConfigDir, "elicitty", "trust.json")
}

// maxTrustFile caps the trust store (thousands of folders).
const maxTrustFile = 4 << 20

// trustStore is the file TrustFile names: per trusted folder, the digest of each of its
// project files at the time the user trusted it.
type trustStore struct {
	Version int                      `json:"version"`
	Folders map[string]trustedFolder `json:"folders"`
}

// trustedFolder is one folder of the trust store.
type trustedFolder struct {
	// Files maps each project file's name to its digest.
	Files map[string]string `json:"files"`
	// Trusted is when the user trusted the folder.
	Trusted time.Time `json:"trusted"`
}

// readTrust reads the trust store at path; a missing file is an empty store.
func readTrust(path string) (trustStore, error) {
	st := trustStore{Version: 1, Folders: map[string]trustedFolder{}}
	if path == "" {
		return st, nil
	}
	data, err := boundedfile.Read(path, maxTrustFile)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read the trust store: %w", err)
	}
	if err := boundedfile.Nesting(path, data, boundedfile.JSON, 0); err != nil {
		return st, fmt.Errorf("read the trust store: %w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		// Not quoted: the file may be anything.
		return trustStore{Version: 1, Folders: map[string]trustedFolder{}}, fmt.Errorf("the trust store %s is not valid (remove it and trust your folders again)", path)
	}
	if st.Folders == nil {
		st.Folders = map[string]trustedFolder{}
	}
	return st, nil
}

// trusts reports whether the store trusts every file of p.
func (st trustStore) trusts(p Project) bool {
	if len(p.Files) == 0 {
		return true
	}
	f, ok := st.Folders[p.Dir]
	if !ok {
		return false
	}
	for _, pf := range p.Files {
		if f.Files[pf.Name] != pf.Digest {
			return false
		}
	}
	return true
}

// Trust records in the trust store (LoadOptions.TrustFile) that the user trusts p's
// folder with its files as they are (their digests in p, from the Load that showed
// them to the user): from then on Load expands and starts their servers, until a file
// changes. The store is written atomically with mode 0600 (its folder 0700), under a
// lock, so that two elicitty processes trusting folders at once both keep theirs.
func Trust(opts LoadOptions, p Project) error {
	if p.Dir == "" || len(p.Files) == 0 {
		return nil
	}
	path := opts.TrustFile()
	if path == "" {
		return errors.New("trust: no config directory to keep the trust store in (set HOME or XDG_CONFIG_HOME)")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	unlock, err := lockFile(path)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	defer unlock()
	st, err := readTrust(path)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	files := make(map[string]string, len(p.Files))
	for _, f := range p.Files {
		files[f.Name] = f.Digest
	}
	st.Version = 1
	st.Folders[p.Dir] = trustedFolder{Files: files, Trusted: time.Now().UTC().Truncate(time.Second)}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// writeAtomic replaces path with data: a new 0600 file in the same folder, synced, then
// renamed over it (a symlink at path is replaced, not followed).
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".trust-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// UntrustedServer returns the server of that name waiting for its folder's trust.
func (c Config) UntrustedServer(name string) (Server, bool) {
	i := slices.IndexFunc(c.Untrusted, func(s Server) bool { return s.Name == name })
	if i < 0 {
		return Server{}, false
	}
	return c.Untrusted[i], true
}
