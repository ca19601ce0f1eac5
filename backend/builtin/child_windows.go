package builtin

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// childAttr puts "new session" children in a new process group, the closest
// Windows has to setsid: they no longer receive the backend's console
// control events.
func childAttr(newSession bool) *syscall.SysProcAttr {
	if !newSession {
		return nil
	}
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}
