//go:build unix && !linux

package transport

import "syscall"

// setDeathSignal does nothing where the kernel offers no parent-death signal.
func setDeathSignal(*syscall.SysProcAttr) {}
