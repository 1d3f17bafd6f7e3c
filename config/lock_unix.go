//go:build unix

package config

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path+".lock" (created 0600, a symlink refused),
// waiting for another process (or goroutine) that holds it, and returns its release:
// one elicitty writing a store never loses what another wrote at the same moment.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
