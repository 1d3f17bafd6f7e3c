//go:build unix

package proxy

import (
	"os"
	"syscall"
	"testing"
)

// TestPollable: a host's blocking socket becomes a non-blocking file of its own for the
// proxy's run, and is blocking again afterwards (the host's process shares the mode);
// a regular file is left alone.
func TestPollable(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	f, peer := os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "peer")
	defer f.Close()
	defer peer.Close()
	// fcntl reads a flag of f without f.Fd(), which would make it blocking.
	fcntl := func(f *os.File, cmd int) uintptr {
		rc, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var flags uintptr
		var errno syscall.Errno
		if err := rc.Control(func(fd uintptr) { flags, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, uintptr(cmd), 0) }); err != nil || errno != 0 {
			t.Fatal(err, errno)
		}
		return flags
	}
	nonblock := func(f *os.File) bool { return fcntl(f, syscall.F_GETFL)&syscall.O_NONBLOCK != 0 }
	pf, restore := Pollable(f)
	if pf == f || !nonblock(pf) {
		t.Fatal("the socket was not made a non-blocking file of its own")
	}
	if fcntl(pf, syscall.F_GETFD)&syscall.FD_CLOEXEC == 0 {
		t.Error("the new file would be inherited by the server the proxy starts")
	}
	if _, err := peer.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if n, err := pf.Read(buf); err != nil || string(buf[:n]) != "x\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	restore()
	if nonblock(f) {
		t.Error("the host's socket stayed non-blocking")
	}
	reg, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if got, _ := Pollable(reg); got != reg {
		t.Error("a regular file was changed")
	}
}
