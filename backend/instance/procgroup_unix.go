//go:build unix

package instance

import (
	"os/exec"
	"syscall"
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

// EnterLauncherJob has nothing to do on Unix: backends are bound to the
// launcher by the watchdog shim's lifeline instead of a job object.
func EnterLauncherJob() error { return nil }

// askToStop sends the leader (the shim, or the backend) SIGTERM and reports
// whether it went out.
func askToStop(i *Instance) bool { return i.leader.handle.Signal(syscall.SIGTERM) == nil }
