package watchdog

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"hermes-desktop/internal/proc"
)

// jobHandle is the shim's kill-on-close job. The shim joins it before
// starting the backend, so the backend and everything it starts are born
// inside; when the shim exits, however it exits, Windows kills them all.
var jobHandle windows.Handle

// notifyShimSignals catches console control events (delivered as SIGINT)
// and SIGTERM from os.Process.Signal emulation.
func notifyShimSignals() <-chan os.Signal {
	c := make(chan os.Signal, 4)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	return c
}

// leadProcessGroup has no Windows counterpart: the job object holds the tree.
func leadProcessGroup() error { return nil }

func openReportFD(fd uintptr) (*os.File, error) {
	h := windows.Handle(fd)
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, 0); err != nil {
		return nil, fmt.Errorf("watchdog: report handle %d: %w", fd, err)
	}
	return os.NewFile(fd, "report"), nil
}

// becomeSubreaper is replaced on Windows by a kill-on-close job object that
// the shim joins: its descendants cannot leave it.
func becomeSubreaper() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("configure job object: %w", err)
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("join job object: %w", err)
	}
	jobHandle = job
	return nil
}

// startChild starts the backend in a new console process group, so it can
// be sent CTRL_BREAK as its SIGTERM.
func startChild(argv, env []string) (proc.Identity, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return proc.Identity{}, fmt.Errorf("watchdog: %w", err)
	}
	p, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP},
	})
	if err != nil {
		return proc.Identity{}, fmt.Errorf("watchdog: start %s: %w", path, err)
	}
	childProcess = p
	id, err := proc.Lookup(p.Pid)
	if err != nil {
		_ = p.Kill()
		return proc.Identity{}, fmt.Errorf("watchdog: identify backend %d: %w", p.Pid, err)
	}
	return id, nil
}

// childProcess is the backend; supervise owns its Wait.
var childProcess *os.Process

// supervise waits for the backend's exit, a teardown signal or the parent's
// death. A teardown sends CTRL_BREAK, waits the grace period, then kills
// every other process in the job.
func supervise(child proc.Identity, signals <-chan os.Signal, parentGone <-chan Reason, grace time.Duration, log *slog.Logger) int {
	exited := make(chan *os.ProcessState, 1)
	go func() {
		st, _ := childProcess.Wait()
		exited <- st
	}()
	var why string
	select {
	case st := <-exited:
		killJobMembers(log)
		return st.ExitCode()
	case sig := <-signals:
		why = "signal " + sig.String()
	case r := <-parentGone:
		why = "parent gone (" + string(r) + ")"
	}
	log.Info("tearing down the backend tree", "why", why, "grace", grace)
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(child.PID))
	select {
	case st := <-exited:
		killJobMembers(log)
		return st.ExitCode()
	case <-time.After(grace):
	}
	killJobMembers(log)
	select {
	case st := <-exited:
		return st.ExitCode()
	case <-time.After(5 * time.Second):
		// Something in the job could not be killed from here. Exiting closes
		// the kill-on-close job, which takes every member with it.
		log.Warn("backend still running after the kill; exiting so the job closes")
		return 128 + 9
	}
}

// killJobMembers terminates every process in the shim's job except the shim.
func killJobMembers(log *slog.Logger) {
	if jobHandle == 0 {
		return
	}
	// JOBOBJECT_BASIC_PROCESS_ID_LIST: two DWORD counts, then ULONG_PTR PIDs.
	var list struct {
		assigned, listed uint32
		pids             [1024]uintptr
	}
	if err := windows.QueryInformationJobObject(jobHandle, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil {
		log.Warn("list job processes", "err", err)
		return
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
		// The PID came from a listing: check, through the handle that pins
		// it, that it is still a member of our job and not a stranger that
		// took a recycled PID.
		if inJob(h, jobHandle) {
			_ = windows.TerminateProcess(h, 1)
		}
		windows.CloseHandle(h)
	}
}

var procIsProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

// inJob reports whether the process behind h is in job (IsProcessInJob);
// false when it cannot be told.
func inJob(h, job windows.Handle) bool {
	var result int32
	r, _, _ := procIsProcessInJob.Call(uintptr(h), uintptr(job), uintptr(unsafe.Pointer(&result)))
	return r != 0 && result != 0
}
