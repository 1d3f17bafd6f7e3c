//go:build !unix

package inbox

import (
	"fmt"
	"io/fs"
	"os"
)

// fileOwner fails: this system has no unix owners.
func fileOwner(fi fs.FileInfo) (int, error) {
	return 0, fmt.Errorf("owner of %s: %w", fi.Name(), ErrUnsupported)
}

// systemTmp is the temporary directory when TMPDIR is unset.
func systemTmp() string { return os.TempDir() }
