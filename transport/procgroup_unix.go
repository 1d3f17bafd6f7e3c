//go:build unix

package transport

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that stopping the server also
// stops what it started (an npx or shell wrapper's child), and a Ctrl-C in the terminal
// reaches elicitty, which then shuts the server down in order, rather than the server.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the server's whole process group; failures (the group is
// already gone) are ignored.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
