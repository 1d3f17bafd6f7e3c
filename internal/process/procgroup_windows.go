package process

import (
	"fmt"
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procGroup is a job object holding a stdio server and whatever it starts. The job is
// killed when its last handle closes, so the server also ends when elicitty dies.
type procGroup struct {
	job  windows.Handle
	once sync.Once
}

// ownGroup starts cmd in a console process group of its own, so that a Ctrl-C in the
// console reaches elicitty, which then shuts the server down in order.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &windows.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// attachGroup puts the started cmd into a new job object that kills its processes
// when closed.
func attachGroup(cmd *exec.Cmd) (*procGroup, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("configure job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("open server process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("assign server to job object: %w", err)
	}
	return &procGroup{job: job}, nil
}

// term ends every process of the job: Windows has no polite signal for a process
// without a console window, so this is kill.
func (g *procGroup) term() { g.kill() }

// kill ends every process of the job.
func (g *procGroup) kill() { _ = windows.TerminateJobObject(g.job, 1) }

// empty reports true: term already killed the whole job, and release kills what is left.
func (g *procGroup) empty() bool { return true }

// release closes the job handle (which kills anything left in it).
// Closing twice could close a handle reused since: once only.
func (g *procGroup) release() { g.once.Do(func() { _ = windows.CloseHandle(g.job) }) }
