//go:build !unix

package transport

import "time"

// cpuTime is unknown here; benchmarks then report no cpu-ns/op.
func cpuTime() time.Duration { return 0 }
