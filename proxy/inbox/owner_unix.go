//go:build unix

package inbox

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileOwner returns the uid that owns fi.
func fileOwner(fi fs.FileInfo) (int, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("owner of %s: %w", fi.Name(), ErrUnsupported)
	}
	return int(st.Uid), nil
}

// systemTmp is the temporary directory when TMPDIR is unset.
func systemTmp() string { return "/tmp" }
