//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Now is the CPU time (user and system) this process has used so far, so that
// benchmarks can report CPU cost apart from wall time on a busy machine.
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
