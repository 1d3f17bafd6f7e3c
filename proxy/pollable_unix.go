//go:build unix

package proxy

import (
	"os"
	"syscall"
)

// Pollable returns a pipe or socket f (a host's stdin or stdout) as a new *os.File in
// non-blocking mode, served by the Go runtime's poller, and a func that closes it and
// puts f back in blocking mode; anything else (a file, a terminal) it returns unchanged.
// Hosts hand their servers blocking sockets or pipes: read and written as they are,
// each message costs a thread blocked in a system call and handed back, which is most
// of the proxy's CPU and latency per message (bench/proxy.sh).
func Pollable(f *os.File) (*os.File, func()) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f, func() {}
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f, func() {}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f, func() {}
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	return nf, func() {
		_ = syscall.SetNonblock(fd, false) // the mode belongs to the file description f shares
		nf.Close()
	}
}
