package instance

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"hermes-desktop/platform/job"
)

// setupCommand starts the child in a new console process group so it can be
// sent CTRL_BREAK (the graceful stop) without reaching the launcher, and,
// if it is a console program, on a console without a window: the desktop
// build has none to lend it, and Windows would open one on the screen. It
// adds to cmd's SysProcAttr: the shim's inherited handles live there too.
func setupCommand(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW
}

// GroupOf is 0 on Windows: console groups are not signalled as Unix groups
// are; the tree is followed by parent links and the job object instead.
func GroupOf(int) int { return 0 }

// treeJob is a kill-on-close job object holding one backend tree.
type treeJob struct{ job *job.Job }

// newJobKiller puts the child in a job object of its own that kills its
// members when closed. The launcher itself sits in a kill-on-close job (see
// EnterLauncherJob), so this one only serves to stop a single backend tree.
func newJobKiller(pid int) (jobKiller, error) {
	job, err := job.NewKillOnClose(false)
	if err != nil {
		return nil, err
	}
	if err := job.Assign(pid); err != nil {
		job.Close()
		return nil, err
	}
	return &treeJob{job: job}, nil
}

// kill terminates every process in the job.
func (j *treeJob) kill() { _ = j.job.Terminate() }

// release closes the job once the tree is gone.
func (j *treeJob) release() { j.job.Close() }

// EnterLauncherJob puts the launcher in a kill-on-close job. Every child is
// born inside it, so when the launcher dies, however it dies, Windows kills
// every backend tree with it. The handle is deliberately never closed.
// Breakaway is allowed for one child only: a handoff's successor, which
// must outlive us (it asks for it with CREATE_BREAKAWAY_FROM_JOB).
func EnterLauncherJob() error {
	job, err := job.NewKillOnClose(true)
	if err != nil {
		return err
	}
	if err := job.AssignSelf(); err != nil {
		job.Close()
		return err
	}
	return nil
}

// askToStop asks a shim with the stop message on its lifeline: no console
// event reaches a shim without a console (the desktop build has none). It
// reports whether anyone heard: a backend run without the shim has a
// console of its own (CREATE_NO_WINDOW), which no event of ours reaches,
// and a shim that is gone reads nothing.
func askToStop(i *Instance) bool {
	return i.shim.on() && i.shim.client.Stop() == nil
}
