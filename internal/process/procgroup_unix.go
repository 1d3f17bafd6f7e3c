//go:build unix

package process

import (
	"errors"
	"os/exec"
	"syscall"
)

// procGroup is the process group of a stdio server: the server and whatever it started.
type procGroup struct{ pid int }

// ownGroup starts cmd in a process group of its own, so that stopping the server also
// stops what it started (an npx or shell wrapper's child), and a Ctrl-C in the terminal
// reaches elicitty, which then shuts the server down in order, rather than the server.
// Where the OS allows it, the server is also killed when elicitty dies without a chance
// to stop it (a crash, SIGKILL).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// attachGroup returns the group of the started cmd.
func attachGroup(cmd *exec.Cmd) (*procGroup, error) {
	return &procGroup{pid: cmd.Process.Pid}, nil
}

// term asks every process of the group to end (SIGTERM); failures (the group is
// already gone) are ignored.
func (g *procGroup) term() { _ = syscall.Kill(-g.pid, syscall.SIGTERM) }

// kill ends every process of the group (SIGKILL).
func (g *procGroup) kill() { _ = syscall.Kill(-g.pid, syscall.SIGKILL) }

// empty reports whether no process of the group is left (reaped ones are not counted;
// a zombie not yet reaped by its new parent is). While one is left, the group's id
// cannot name another process group.
func (g *procGroup) empty() bool {
	return errors.Is(syscall.Kill(-g.pid, 0), syscall.ESRCH)
}

// release frees what the group holds; nothing on Unix.
func (g *procGroup) release() {}
