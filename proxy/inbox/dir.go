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

// RuntimeDir returns the directory of the proxies' sockets, creating it (mode 0700)
// when missing: $ELICITTY_RUNTIME_DIR when set, else $XDG_RUNTIME_DIR/elicitty, else
// elicitty-<uid> in the system's temporary directory. It refuses a directory that is
// not a directory (a symlink included), is owned by another user, or is open to the
// group or others. getenv reads the environment.
func RuntimeDir(getenv func(string) string) (string, error) {
	dir := getenv("ELICITTY_RUNTIME_DIR")
	switch {
	case dir != "":
	case getenv("XDG_RUNTIME_DIR") != "":
		dir = filepath.Join(getenv("XDG_RUNTIME_DIR"), "elicitty")
	default:
		dir = filepath.Join(os.TempDir(), "elicitty-"+strconv.Itoa(os.Getuid()))
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create the inbox directory %s: %w", dir, err)
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// checkDir refuses a runtime directory another user could read or write.
func checkDir(dir string) error {
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
	if uid != os.Getuid() {
		return fmt.Errorf("inbox directory %s belongs to uid %d, not to this user (uid %d)", dir, uid, os.Getuid())
	}
	return nil
}
