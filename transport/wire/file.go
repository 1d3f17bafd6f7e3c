package wire

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/elicitty/elicitty/internal/boundedfile"
)

// OpenFile opens the file at path for something we write that holds what passed on the
// wire (the --log file, recorded answers): write-only, created with mode 0600, with
// flag added (os.O_TRUNC, os.O_APPEND). It never writes through a symbolic link and
// refuses anything but a regular file (a FIFO, device, socket or directory) by name,
// without blocking on it. An existing file that other users may read or write is made
// 0600 again, and warning says so; it is "" otherwise.
func OpenFile(path string, flag int) (f *os.File, warning string, err error) {
	if fi, err := os.Lstat(path); err == nil {
		if err := writable(path, fi); err != nil {
			return nil, "", err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("open %s: %w", path, err)
	}
	// noFollow closes the race with a symlink or FIFO put there after the Lstat.
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flag|noFollow, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = writable(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, "", err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, "", fmt.Errorf("%s has mode %04o, open to other users, and could not be made 0600: %w", path, perm, err)
		}
		warning = fmt.Sprintf("%s had mode %04o, open to other users; it is now 0600", path, perm)
	}
	return f, warning, nil
}

// writable refuses a file we must not write into: a symbolic link (whose target could
// be any file of the user's) or anything but a regular file.
func writable(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	what := boundedfile.Kind(m)
	return fmt.Errorf("%s is %s; refusing to write to it", path, what)
}
