package backend

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"hermes-desktop/internal/proc"
)

// setupCommand starts the child in a new console process group so it can be
// sent CTRL_BREAK (the graceful stop) without reaching the launcher.
func setupCommand(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// groupOf is 0 on Windows: console groups are not signalled as Unix groups
// are; the tree is followed by parent links and the job object instead.
func groupOf(int) int { return 0 }

// treeJob is a kill-on-close job object holding one backend tree.
type treeJob struct{ job windows.Handle }

// newJobKiller puts the child in a job object of its own that kills its
// members when closed. The launcher itself sits in a kill-on-close job (see
// main), so this one only serves to stop a single backend tree.
func newJobKiller(pid int) (jobKiller, error) {
	job, err := newKillOnCloseJob(0)
	if err != nil {
		return nil, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("open backend process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("assign backend to job: %w", err)
	}
	return &treeJob{job: job}, nil
}

// kill terminates every process in the job.
func (j *treeJob) kill() { _ = windows.TerminateJobObject(j.job, 1) }

// release closes the job once the tree is gone.
func (j *treeJob) release() {
	if j.job != 0 {
		windows.CloseHandle(j.job)
		j.job = 0
	}
}

// newKillOnCloseJob creates a job object that kills every member when its
// last handle is closed, however its holder dies.
func newKillOnCloseJob(extra uint32) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | extra
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("configure job object: %w", err)
	}
	return job, nil
}

// EnterLauncherJob puts the launcher in a kill-on-close job. Every child is
// born inside it, so when the launcher dies, however it dies, Windows kills
// every backend tree with it. The handle is deliberately never closed.
// Breakaway is allowed for one child only: a handoff's successor, which
// must outlive us (it asks for it with CREATE_BREAKAWAY_FROM_JOB).
func EnterLauncherJob() error {
	job, err := newKillOnCloseJob(windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK)
	if err != nil {
		return err
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("join job object: %w", err)
	}
	return nil
}

// askToStop sends CTRL_BREAK to the console group the leader leads: we
// started it with CREATE_NEW_PROCESS_GROUP, so the event reaches that group
// only. An adopted leader was started the same way by our predecessor.
func askToStop(i *instance) { _ = proc.SignalConsoleGroup(i.leader.PID) }
