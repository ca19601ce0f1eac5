package proc

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Job is a Windows job object that kills every member when its last handle
// closes, however its holder dies: the Windows counterpart of a subreaper
// and a cgroup. Processes started by a member are born inside it.
type Job struct{ h windows.Handle }

// NewKillOnCloseJob creates an empty kill-on-close job. allowBreakaway lets
// a member start one child outside it on request
// (CREATE_BREAKAWAY_FROM_JOB): a handoff's successor must outlive us.
func NewKillOnCloseJob(allowBreakaway bool) (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("proc: create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if allowBreakaway {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK
	}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("proc: configure job object: %w", err)
	}
	return &Job{h: h}, nil
}

// AssignSelf puts the calling process in the job.
func (j *Job) AssignSelf() error {
	if err := windows.AssignProcessToJobObject(j.h, windows.CurrentProcess()); err != nil {
		return fmt.Errorf("proc: join job object: %w", err)
	}
	return nil
}

// Assign puts process pid in the job.
func (j *Job) Assign(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("proc: open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(j.h, h); err != nil {
		return fmt.Errorf("proc: assign %d to job: %w", pid, err)
	}
	return nil
}

// Terminate kills every member of the job at once.
func (j *Job) Terminate() error {
	if err := windows.TerminateJobObject(j.h, 1); err != nil {
		return fmt.Errorf("proc: terminate job: %w", err)
	}
	return nil
}

// KillMembers terminates every member but the caller, each through a
// handle on which membership is checked first: a PID from the listing may
// have been recycled by a stranger since.
func (j *Job) KillMembers() error {
	// JOBOBJECT_BASIC_PROCESS_ID_LIST: two DWORD counts, then ULONG_PTR PIDs.
	var list struct {
		assigned, listed uint32
		pids             [1024]uintptr
	}
	if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil {
		return fmt.Errorf("proc: list job members: %w", err)
	}
	self := uint32(os.Getpid())
	for _, pid := range list.pids[:min(int(list.listed), len(list.pids))] {
		if uint32(pid) == self || pid == 0 {
			continue
		}
		h, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
		if err != nil {
			continue
		}
		if isProcessInJob(h, j.h) {
			_ = windows.TerminateProcess(h, 1)
		}
		windows.CloseHandle(h)
	}
	return nil
}

// Close drops our handle; if it was the last, the members die with it.
func (j *Job) Close() {
	if j.h != 0 {
		windows.CloseHandle(j.h)
		j.h = 0
	}
}

var procIsProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

// isProcessInJob reports whether the process behind h is in job; false
// when it cannot be told.
func isProcessInJob(h, job windows.Handle) bool {
	var result int32
	r, _, _ := procIsProcessInJob.Call(uintptr(h), uintptr(job), uintptr(unsafe.Pointer(&result)))
	return r != 0 && result != 0
}
