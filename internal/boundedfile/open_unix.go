//go:build unix

package boundedfile

import (
	"os"
	"syscall"
)

// openNonblock opens path for reading without blocking: a FIFO with no writer would
// otherwise block the open itself. O_NONBLOCK changes nothing for a regular file.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
