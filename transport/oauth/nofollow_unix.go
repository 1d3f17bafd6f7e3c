//go:build unix

package oauth

import "syscall"

// noFollow makes an open fail on a symbolic link and not block on a FIFO.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
