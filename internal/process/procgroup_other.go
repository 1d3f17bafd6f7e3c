//go:build !unix && !windows

package process

import "os/exec"

// procGroup is the server process alone where neither process groups nor job objects
// are available.
type procGroup struct{ cmd *exec.Cmd }

// ownGroup does nothing where process groups are not available.
func ownGroup(*exec.Cmd) {}

// attachGroup returns the started cmd as its own group.
func attachGroup(cmd *exec.Cmd) (*procGroup, error) { return &procGroup{cmd: cmd}, nil }

// term kills the process: there is no portable polite signal.
func (g *procGroup) term() { g.kill() }

// kill ends the process.
func (g *procGroup) kill() { _ = g.cmd.Process.Kill() }

// empty reports true: the group is the process alone.
func (g *procGroup) empty() bool { return true }

// release does nothing.
func (g *procGroup) release() {}
