//go:build unix && !linux

package process

import "syscall"

// setDeathSignal does nothing where the kernel offers no parent-death signal.
func setDeathSignal(*syscall.SysProcAttr) {}
