package job

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"

	"hermes-desktop/platform/handles"
)

// Job is a Windows job object that kills every member when its last handle
// closes, however its holder dies: the Windows counterpart of a subreaper
// and a cgroup. Processes started by a member are born inside it.
type Job struct{ h windows.Handle }

// NewKillOnClose creates an empty kill-on-close job. allowBreakaway lets
// a member start one child outside it on request
// (CREATE_BREAKAWAY_FROM_JOB): a handoff's successor must outlive us.
func NewKillOnClose(allowBreakaway bool) (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("job: create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if allowBreakaway {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK
	}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("job: configure job object: %w", err)
	}
	return &Job{h: h}, nil
}

// Inherit takes the handle of a job a predecessor passed down (an
// inherited handle keeps its value in the child). It must name a job
// object: a handle value that names anything else is refused and left
// alone. Whether the job kills on close is not checked: our predecessor
// made it so (NewKillOnClose), and Wine answers a query of the limits with
// none set. It is made non-inheritable, so no child of ours holds it.
func Inherit(h uintptr) (*Job, error) {
	j := &Job{h: windows.Handle(h)}
	if err := j.isJob(); err != nil {
		return nil, fmt.Errorf("job: inherited handle %d is no job object: %w", h, err)
	}
	if err := handles.Private(h); err != nil {
		return nil, fmt.Errorf("job: inherited job: %w", err)
	}
	return j, nil
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION: four
// LARGE_INTEGER times, then four DWORD counts.
type jobAccounting struct {
	totalUser, totalKernel, periodUser, periodKernel                 int64
	pageFaults, totalProcesses, activeProcesses, terminatedProcesses uint32
}

// isJob asks the handle a question only a job answers, of a fixed size
// however many members it has (the member list is not: a job of more than
// maxJobList members answers ERROR_MORE_DATA).
func (j *Job) isJob() error {
	var info jobAccounting
	if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return fmt.Errorf("job: query job accounting: %w", err)
	}
	return nil
}

// Handle is the job's handle, ours: valid until Close. A handoff passes a
// duplicate of it down.
func (j *Job) Handle() uintptr { return uintptr(j.h) }

// Duplicate is a second handle on the job, not inheritable, which the
// caller owns and closes (windows.CloseHandle): the job lives on while
// either is open. It fails once Close has run.
func (j *Job) Duplicate() (uintptr, error) {
	if j.h == 0 {
		return 0, errors.New("job: duplicate a closed job")
	}
	self := windows.CurrentProcess()
	var d windows.Handle
	if err := windows.DuplicateHandle(self, j.h, self, &d, 0, false, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return 0, fmt.Errorf("job: duplicate job handle: %w", err)
	}
	return uintptr(d), nil
}

// Holds reports whether process pid is a member of the job (or of a job
// nested in it).
func (j *Job) Holds(pid int) (bool, error) {
	h, err := openMember(uint32(pid))
	if err != nil {
		return false, fmt.Errorf("job: open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	in, err := isProcessInJob(h, j.h)
	if err != nil {
		return false, fmt.Errorf("job: process %d: %w", pid, err)
	}
	return in, nil
}

// AssignSelf puts the calling process in the job.
func (j *Job) AssignSelf() error {
	if err := windows.AssignProcessToJobObject(j.h, windows.CurrentProcess()); err != nil {
		return fmt.Errorf("job: join job object: %w", err)
	}
	return nil
}

// Assign puts process pid in the job.
func (j *Job) Assign(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("job: open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(j.h, h); err != nil {
		return fmt.Errorf("job: assign %d to job: %w", pid, err)
	}
	return nil
}

// Terminate kills every member of the job at once.
func (j *Job) Terminate() error {
	if err := windows.TerminateJobObject(j.h, 1); err != nil {
		return fmt.Errorf("job: terminate job: %w", err)
	}
	return nil
}

// KillMembers terminates every member but the caller, each through a
// handle on which membership is checked first: a PID from the listing may
// have been recycled by a stranger since. A member that exits meanwhile is
// no error; one that could not be checked or killed is, and is left alone.
func (j *Job) KillMembers() error {
	pids, err := j.memberPIDs()
	if err != nil {
		return err
	}
	self := uint32(os.Getpid())
	var errs []error
	for _, pid := range pids {
		if pid != self && pid != 0 {
			errs = append(errs, j.killMember(pid))
		}
	}
	return errors.Join(errs...)
}

// memberPIDs lists the job's members (at most maxJobList).
func (j *Job) memberPIDs() ([]uint32, error) {
	// JOBOBJECT_BASIC_PROCESS_ID_LIST: two DWORD counts, then ULONG_PTR PIDs.
	var list struct {
		assigned, listed uint32
		pids             [maxJobList]uintptr
	}
	if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil {
		return nil, fmt.Errorf("job: list job members: %w", err)
	}
	pids := make([]uint32, 0, list.listed)
	for _, pid := range list.pids[:min(int(list.listed), len(list.pids))] {
		pids = append(pids, uint32(pid))
	}
	return pids, nil
}

// maxJobList bounds one listing of a job's members; a backend's tree is far
// smaller.
const maxJobList = 1024

// killMember terminates pid if, checked through a handle that pins it, it
// is still a member of j.
func (j *Job) killMember(pid uint32) error {
	h, err := openMember(pid)
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return nil // exited since the listing
	}
	if err != nil {
		return fmt.Errorf("job: open job member %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	in, err := isProcessInJob(h, j.h)
	if err != nil {
		return fmt.Errorf("job: job member %d: %w", pid, err)
	}
	if !in {
		return nil // the PID now names a stranger
	}
	if err := windows.TerminateProcess(h, 1); err != nil && !handleExited(h) {
		return fmt.Errorf("job: terminate job member %d: %w", pid, err)
	}
	return nil
}

// openMember opens pid for the membership check and the kill.
// IsProcessInJob wants PROCESS_QUERY_INFORMATION on Wine and on Windows XP
// and Server 2003 (its documentation): with only the limited right the
// check fails there, and a KillMembers that asked for nothing more killed
// nothing under Wine. A protected process grants only the limited right,
// which later Windows accepts, so that is the fallback.
func openMember(pid uint32) (windows.Handle, error) {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_INFORMATION|windows.SYNCHRONIZE, false, pid)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		h, err = windows.OpenProcess(windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, pid)
	}
	return h, err
}

// handleExited reports whether the process behind h has exited: a member
// that ends on its own while we kill it is what we wanted.
func handleExited(h windows.Handle) bool {
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

// Close drops our handle; if it was the last, the members die with it.
func (j *Job) Close() {
	if j.h != 0 {
		windows.CloseHandle(j.h)
		j.h = 0
	}
}

var procIsProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

// isProcessInJob reports whether the process behind h is in job.
func isProcessInJob(h, job windows.Handle) (bool, error) {
	var result int32
	r, _, err := procIsProcessInJob.Call(uintptr(h), uintptr(job), uintptr(unsafe.Pointer(&result)))
	if r == 0 {
		return false, fmt.Errorf("IsProcessInJob: %w", err)
	}
	return result != 0, nil
}
