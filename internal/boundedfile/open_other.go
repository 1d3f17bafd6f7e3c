//go:build !unix

package boundedfile

import "os"

// openNonblock opens path for reading; on this system opening a file does not block.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }
