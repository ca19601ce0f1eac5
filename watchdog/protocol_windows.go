package watchdog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"hermes-desktop/platform/handles"
)

// keepFromChildren makes the launcher's end non-inheritable. os.Pipe makes
// both ends inheritable, trusting every CreateProcess to pass a handle list
// as Go's does; a process started any other way (by a DLL, say) with
// bInheritHandles would otherwise hold the lifeline's write end, and the
// shim would see no EOF while that process lives.
func keepFromChildren(f *os.File) error { return handles.Private(f.Fd()) }

// shimEnd makes the shim's end inheritable, as AdditionalInheritedHandles
// requires, and returns its handle value: an inherited handle has the same
// value in the child. Inheritable is not inherited: Go's StartProcess
// passes PROC_THREAD_ATTRIBUTE_HANDLE_LIST, so only the child whose list
// names the handle receives it (syscall/exec_windows.go), and the shim
// makes its copies non-inheritable again before it starts the backend
// (OpenLifeline, openReportFD).
func shimEnd(f *os.File, _ int) (int, error) {
	h := windows.Handle(f.Fd())
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
		return 0, fmt.Errorf("make handle inheritable: %w", err)
	}
	return int(h), nil
}

// attachShimEnds adds the ends to the handles cmd's child inherits, keeping
// the rest of its SysProcAttr (the console group setupCommand asks for).
func attachShimEnds(cmd *exec.Cmd, lifeline, report, _ *os.File) error { // no exit word on Windows
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if cmd.SysProcAttr.NoInheritHandles {
		return errors.New("watchdog: attach shim pipes: the command inherits no handles (NoInheritHandles)")
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles,
		syscall.Handle(lifeline.Fd()), syscall.Handle(report.Fd()))
	return nil
}
