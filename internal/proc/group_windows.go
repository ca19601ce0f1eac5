package proc

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/windows"
)

// SignalGroup is not available on Windows: process groups there are console
// groups, and trees are stopped through job objects instead.
func SignalGroup(pgid int, sig syscall.Signal) error {
	return fmt.Errorf("proc: process groups are not signalled on windows (group %d, %v)", pgid, sig)
}

// SignalConsoleGroup asks the console process group led by pid to stop
// (CTRL_BREAK). Only for groups the caller created with
// CREATE_NEW_PROCESS_GROUP: for any other PID Windows may deliver the event
// to every process on the console.
func SignalConsoleGroup(pid int) error {
	if pid <= 0 {
		return fmt.Errorf("proc: no console group %d", pid)
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)); err != nil {
		return fmt.Errorf("proc: CTRL_BREAK to group %d: %w", pid, err)
	}
	return nil
}
