//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package consent

import "golang.org/x/sys/unix"

// cbreak turns off line buffering and echo on the terminal fd, so that a wait's keys
// arrive as typed; signals stay on (ctrl+c still interrupts) and output is untouched.
// It returns the function that restores the terminal; on failure that does nothing.
func cbreak(fd uintptr) func() {
	old, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	t := *old
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(int(fd), ioctlSetTermios, &t); err != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(int(fd), ioctlSetTermios, old) }
}
