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

var (
	procAttachConsole = windows.NewLazySystemDLL("kernel32.dll").NewProc("AttachConsole")
	procFreeConsole   = windows.NewLazySystemDLL("kernel32.dll").NewProc("FreeConsole")
)

// SignalOwnConsoleGroup asks the console group led by pid to stop
// (CTRL_BREAK) when it runs on a console of its own (CREATE_NO_WINDOW): a
// console event reaches only processes on the sender's console, so the
// caller leaves whatever console it had and attaches to pid's for the send.
// For a caller whose output never goes to a console (the watchdog shim's
// goes to the launcher's pipes), and only for a group it created, as
// SignalConsoleGroup.
func SignalOwnConsoleGroup(pid int) error {
	_, _, _ = procFreeConsole.Call()
	if r, _, err := procAttachConsole.Call(uintptr(pid)); r == 0 {
		return fmt.Errorf("proc: attach to the console of %d: %w", pid, err)
	}
	defer func() { _, _, _ = procFreeConsole.Call() }()
	return SignalConsoleGroup(pid)
}
