//go:build !unix

package inbox

import (
	"fmt"
	"io/fs"
)

// fileOwner fails: this system has no unix owners.
func fileOwner(fi fs.FileInfo) (int, error) {
	return 0, fmt.Errorf("owner of %s: %w", fi.Name(), ErrUnsupported)
}
