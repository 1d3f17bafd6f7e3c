package inbox

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerCred returns the uid of the process at the other end of c (LOCAL_PEERCRED);
// the pid is 0 (unknown).
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return 0, 0, fmt.Errorf("peer credentials: %w", err)
	}
	if cerr != nil {
		return 0, 0, fmt.Errorf("peer credentials: %w", cerr)
	}
	return int(cred.Uid), 0, nil
}
