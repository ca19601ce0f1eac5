//go:build unix

package instance

import (
	"errors"
	"os/exec"
	"syscall"

	"hermes-desktop/platform/proc"
)

// setupCommand puts the child in a process group of its own (pgid = its
// pid), so a terminal's Ctrl-C reaches the launcher only and the tree can be
// signalled as a group. It adds to cmd's SysProcAttr, as its Windows
// counterpart must.
func setupCommand(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// GroupOf is the process group a child started by setupCommand leads.
func GroupOf(pid int) int { return pid }

// newJobKiller has nothing to offer on Unix: the process group and the
// tracked tree do the job.
func newJobKiller(int) (jobKiller, error) { return nil, nil }

// TreeJob has no Unix counterpart: a tree is held by its process group,
// its cgroup and the shim. A nil *TreeJob is none.
type TreeJob struct{}

// InheritTreeJob has nothing to take: a Unix predecessor passes no job
// (h is always 0).
func InheritTreeJob(h uintptr) (*TreeJob, error) {
	if h != 0 {
		return nil, errors.New("instance: a job handle on an OS without jobs")
	}
	return nil, nil
}

// Close has nothing to close.
func (*TreeJob) Close() {}

// adoptJobKiller: there is no job to adopt.
func adoptJobKiller(*TreeJob, *proc.Handle) (jobKiller, error) { return nil, nil }

// LauncherJob has no Unix counterpart: backends are bound to the launcher
// by the watchdog shim's lifeline instead of a job object. A nil
// *LauncherJob is none.
type LauncherJob struct{}

// EnterLauncherJob has nothing to do on Unix (no job, nothing inherited).
func EnterLauncherJob(uintptr) (*LauncherJob, error) { return nil, nil }

// Handle is 0: there is no job to pass on.
func (*LauncherJob) Handle() uintptr { return 0 }

// askToStop sends the leader (the shim, or the backend) SIGTERM and reports
// whether it went out.
func askToStop(i *Instance) bool { return i.leader.handle.Signal(syscall.SIGTERM) == nil }
