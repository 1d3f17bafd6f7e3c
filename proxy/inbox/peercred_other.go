//go:build !linux && !darwin

package inbox

import "net"

// peerCred fails: this system offers no peer credentials the inbox knows how to read,
// so every connection is refused.
func peerCred(*net.UnixConn) (uid, pid int, err error) { return 0, 0, ErrUnsupported }
