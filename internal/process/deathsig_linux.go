package process

import "syscall"

// setDeathSignal has the kernel SIGKILL the server when elicitty dies before it could
// stop it (a crash or SIGKILL: no deferred cleanup runs). It reaches the server itself,
// not what the server started; an orderly exit stops the whole group.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
