//go:build unix

package desc

import (
	"syscall"
	"time"
)

// cpuTime returns the user+system CPU time of this process, so benchmarks can report
// CPU cost apart from wall time on a busy machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
