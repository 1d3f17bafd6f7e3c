package inbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// ErrUnsupported reports a system where the inbox cannot check who is at the other end
// of its socket (no peer credentials); neither side runs there.
var ErrUnsupported = errors.New("the inbox needs peer credentials of unix sockets, which this system does not offer")

// socketPattern matches the proxies' sockets in the runtime directory.
const socketPattern = "proxy-*.sock"

// socketName is the socket of the proxy with process id pid.
func socketName(pid int) string { return "proxy-" + strconv.Itoa(pid) + ".sock" }

// Places says where proxies and inboxes meet. A proxy is started by its host, often
// with a stripped environment (the TypeScript SDK passes only HOME, LOGNAME, PATH,
// SHELL, TERM and USER), while an inbox runs in the user's shell with
// XDG_RUNTIME_DIR and TMPDIR set: so the proxy's directory is derived from the user id
// alone (ProxyDir), and an inbox looks in every place a proxy of this user may have
// chosen (Search). Build one with SystemPlaces; tests fill in the fields. The zero
// value is not usable.
type Places struct {
	// Getenv reads the environment: ELICITTY_RUNTIME_DIR, XDG_RUNTIME_DIR and TMPDIR.
	Getenv func(string) string
	// UID is the user's id.
	UID int
	// RunUser is the parent of the per-user runtime directories, "/run/user".
	RunUser string
	// Tmp is the temporary directory when TMPDIR is unset: "/tmp" on unix.
	Tmp string
}

// SystemPlaces returns the places of this user on this system, reading the
// environment with getenv.
func SystemPlaces(getenv func(string) string) Places {
	return Places{Getenv: getenv, UID: os.Getuid(), RunUser: "/run/user", Tmp: systemTmp()}
}

// override is $ELICITTY_RUNTIME_DIR, the one place of both sides when set.
func (p Places) override() string { return p.Getenv("ELICITTY_RUNTIME_DIR") }

// tmpName is the directory's name under a temporary directory.
func (p Places) tmpName() string { return "elicitty-" + strconv.Itoa(p.UID) }

// userRuntime is /run/user/UID when it is the user's own runtime directory: a
// directory (not a symlink) the user owns, of mode 0700; "" otherwise.
func (p Places) userRuntime() string {
	if p.RunUser == "" {
		return ""
	}
	dir := filepath.Join(p.RunUser, strconv.Itoa(p.UID))
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		return ""
	}
	if uid, err := fileOwner(fi); err != nil || uid != p.UID {
		return ""
	}
	return dir
}

// ProxyDir is where a proxy listens, whatever the environment its host passed:
// $ELICITTY_RUNTIME_DIR when set; else elicitty in /run/user/UID when that is the
// user's own runtime directory; else elicitty-UID in /tmp (Tmp). XDG_RUNTIME_DIR and
// TMPDIR are not read: a host may pass them or not, and an inbox must find the proxy
// either way. It creates nothing (RuntimeDir does).
func (p Places) ProxyDir() string {
	if dir := p.override(); dir != "" {
		return dir
	}
	if run := p.userRuntime(); run != "" {
		return filepath.Join(run, "elicitty")
	}
	return filepath.Join(p.Tmp, p.tmpName())
}

// Search is where an inbox looks for proxies, in order and without duplicates: only
// $ELICITTY_RUNTIME_DIR when set; else $XDG_RUNTIME_DIR/elicitty,
// /run/user/UID/elicitty, $TMPDIR/elicitty-UID and /tmp/elicitty-UID. Whatever the
// environments of the proxy and of the inbox, the proxy's ProxyDir is among them; the
// places under XDG_RUNTIME_DIR and TMPDIR are those of earlier versions' proxies. Each
// place is checked (owner and mode) when it is read.
func (p Places) Search() []string {
	if dir := p.override(); dir != "" {
		return []string{filepath.Clean(dir)}
	}
	var dirs []string
	add := func(dir string) {
		dir = filepath.Clean(dir)
		for _, d := range dirs {
			if d == dir {
				return
			}
		}
		dirs = append(dirs, dir)
	}
	if x := p.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		add(filepath.Join(x, "elicitty"))
	}
	if p.RunUser != "" {
		add(filepath.Join(p.RunUser, strconv.Itoa(p.UID), "elicitty"))
	}
	if t := p.Getenv("TMPDIR"); t != "" && filepath.IsAbs(t) {
		add(filepath.Join(t, p.tmpName()))
	}
	add(filepath.Join(p.Tmp, p.tmpName()))
	return dirs
}

// Place is one directory an inbox searches, as Inspect found it.
type Place struct {
	Dir string `json:"dir"`
	// Problem says why the place is not read ("" when it is): it does not exist yet,
	// or it is refused (another user's, open to others, not a directory).
	Problem string `json:"problem,omitempty"`
	// Missing reports that the directory does not exist (no proxy has used it).
	Missing bool `json:"missing,omitempty"`
}

// Inspect reports each place of Search: whether it exists and whether an inbox reads it.
func (p Places) Inspect() []Place {
	var out []Place
	for _, dir := range p.Search() {
		out = append(out, inspect(dir, p.UID))
	}
	return out
}

// inspect checks one searched place.
func inspect(dir string, uid int) Place {
	pl := Place{Dir: dir}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		pl.Missing, pl.Problem = true, "does not exist"
		return pl
	}
	if err := checkDirOf(dir, uid); err != nil {
		pl.Problem = err.Error()
	}
	return pl
}

// RuntimeDir returns the directory a proxy listens in (Places.ProxyDir of this system
// under getenv), creating it (mode 0700) when missing. It refuses a directory that is
// not a directory (a symlink included), is owned by another user, or is open to the
// group or others.
func RuntimeDir(getenv func(string) string) (string, error) {
	return SystemPlaces(getenv).RuntimeDir()
}

// RuntimeDir returns ProxyDir, creating it (mode 0700) when missing and checking it as
// the package-level RuntimeDir does.
func (p Places) RuntimeDir() (string, error) {
	dir := p.ProxyDir()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create the inbox directory %s: %w", dir, err)
	}
	if err := checkDirOf(dir, p.UID); err != nil {
		return "", err
	}
	return dir, nil
}

// checkDir refuses a runtime directory another user could read or write.
func checkDir(dir string) error { return checkDirOf(dir, os.Getuid()) }

// checkDirOf refuses a runtime directory that user uid does not have alone.
func checkDirOf(dir string, want int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("inbox directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("inbox directory %s is not a directory", dir)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("inbox directory %s has mode %#o: it must be the user's alone (chmod 700)", dir, perm)
	}
	uid, err := fileOwner(fi)
	if err != nil {
		return err
	}
	if uid != want {
		return fmt.Errorf("inbox directory %s belongs to uid %d, not to this user (uid %d)", dir, uid, want)
	}
	return nil
}
