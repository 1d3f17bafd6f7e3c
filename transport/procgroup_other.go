//go:build !unix

package transport

import (
	"os/exec"
	"syscall"
)

// ownGroup does nothing where process groups are not available.
func ownGroup(*exec.Cmd) {}

// signalGroup signals the server process itself where process groups are not available.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	if sig == syscall.SIGKILL {
		_ = cmd.Process.Kill()
		return
	}
	_ = cmd.Process.Signal(sig)
}
