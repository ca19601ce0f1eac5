package instance

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"hermes-desktop/platform/job"
	"hermes-desktop/platform/proc"
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

// TreeJob is a kill-on-close job object holding one backend tree: the one
// the instance made (newJobKiller), or the one a handoff's predecessor
// kept the tree in, which the successor takes (InheritTreeJob) and gives
// to Adopt. A nil *TreeJob is none.
type TreeJob struct{ job *job.Job }

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
	return &TreeJob{job: job}, nil
}

// InheritTreeJob takes the handle of the job a handoff's predecessor kept
// a tree in (0: it had none), made non-inheritable: nothing we start may
// hold it. A handle that names no job is refused and left alone.
func InheritTreeJob(h uintptr) (*TreeJob, error) {
	if h == 0 {
		return nil, nil
	}
	j, err := job.Inherit(h)
	if err != nil {
		return nil, err
	}
	return &TreeJob{job: j}, nil
}

// adoptJobKiller makes an adopted tree's job (nil: none) the instance's
// once it is known to hold the shim: a handle that names another job is
// refused, never terminated, and stays the caller's. The shim is asked
// for by its PID, which our open handle on it pins (Windows reuses no
// PID while a handle is open): the answer is the shim's, never a
// stranger's. (Not through that handle itself: it has the limited query
// right, and IsProcessInJob wants the full one on Wine; see job.Holds.)
func adoptJobKiller(j *TreeJob, shim *proc.Handle) (jobKiller, error) {
	if j == nil {
		return nil, nil
	}
	pid := shim.Identity().PID
	if in, err := j.job.Holds(pid); err != nil || !in {
		return nil, fmt.Errorf("instance: the handed-over job does not hold shim %d (%v)", pid, err)
	}
	return j, nil
}

// Close closes our handle on the job: if it was the last, what is left
// of the tree dies with it.
func (j *TreeJob) Close() {
	if j != nil {
		j.job.Close()
	}
}

// kill terminates every process in the job.
func (j *TreeJob) kill() { _ = j.job.Terminate() }

// release closes the job once the tree is gone.
func (j *TreeJob) release() { j.Close() }

// dup is a copy of the job's handle, for a handoff to pass on.
func (j *TreeJob) dup() (uintptr, error) { return j.job.Duplicate() }

// LauncherJob is the kill-on-close job the launcher lives in: every child
// is born inside it, so when the last launcher holding it dies, however it
// dies, Windows kills every backend tree with it. Breakaway is allowed for
// one child only: a handoff's successor, which must outlive us (it asks
// for it with CREATE_BREAKAWAY_FROM_JOB) and, in adopt mode, joins this
// same job with the handle it inherits. The handle is deliberately never
// closed: exiting closes it.
type LauncherJob struct{ job *job.Job }

// EnterLauncherJob puts the launcher in its job: the one an adopt-mode
// predecessor handed down (inherited, its handle value; from then on both
// hold it, and it ends only when the last of them is gone), or a new one
// (inherited 0).
func EnterLauncherJob(inherited uintptr) (*LauncherJob, error) {
	var j *job.Job
	var err error
	if inherited != 0 {
		j, err = job.Inherit(inherited)
	} else {
		j, err = job.NewKillOnClose(true)
	}
	if err != nil {
		return nil, err
	}
	if err := j.AssignSelf(); err != nil {
		j.Close() // an inherited one lives on in the predecessor
		return nil, err
	}
	return &LauncherJob{job: j}, nil
}

// Handle is the job's handle, for a handoff to pass on; 0 for none.
func (l *LauncherJob) Handle() uintptr {
	if l == nil {
		return 0
	}
	return l.job.Handle()
}

// Holds reports whether process pid lives in the job.
func (l *LauncherJob) Holds(pid int) (bool, error) {
	if l == nil {
		return false, errors.New("instance: the launcher is in no job")
	}
	return l.job.Holds(pid)
}

// askToStop asks a shim with the stop message on its lifeline: no console
// event reaches a shim without a console (the desktop build has none). It
// reports whether anyone heard: a backend run without the shim has a
// console of its own (CREATE_NO_WINDOW), which no event of ours reaches,
// and a shim that is gone reads nothing.
func askToStop(i *Instance) bool {
	return i.shim.on() && i.shim.client.Stop() == nil
}
