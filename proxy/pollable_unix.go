//go:build unix

package proxy

import (
	"os"
	"syscall"
)

// Pollable returns a pipe or socket f (a host's stdin or stdout) as a new *os.File in
// non-blocking mode, served by the Go runtime's poller, and a func that closes it and
// puts f's mode back as it was; anything else (a file, a terminal) it returns
// unchanged. Hosts hand their servers blocking sockets or pipes: read and written as
// they are, each message holds a thread in a system call, which the runtime hands off
// and takes back (bench/proxy.sh).
func Pollable(f *os.File) (*os.File, func()) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f, func() {}
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f, func() {}
	}
	fd, wasNonblock := -1, false
	// Close-on-exec, like every file Go opens: the server the proxy starts must not
	// inherit the host's pipe (it would hold the host's stdout open past our exit).
	syscall.ForkLock.RLock()
	_ = rc.Control(func(orig uintptr) {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, orig, syscall.F_GETFL, 0)
		wasNonblock = errno == 0 && flags&syscall.O_NONBLOCK != 0
		if d, err := syscall.Dup(int(orig)); err == nil {
			syscall.CloseOnExec(d)
			fd = d
		}
	})
	syscall.ForkLock.RUnlock()
	if fd < 0 {
		return f, func() {}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f, func() {}
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	return nf, func() {
		// The mode belongs to the file description f shares: put it back.
		_ = syscall.SetNonblock(fd, wasNonblock)
		nf.Close()
	}
}
