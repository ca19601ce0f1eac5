package backend

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// openerCommand hands the target to the shell's protocol handler without a
// console window or cmd.exe quoting rules.
func openerCommand(target string) []string {
	return []string{"rundll32", "url.dll,FileProtocolHandler", target}
}

// openerAttr starts the opener outside the launcher's kill-on-close job:
// a browser it starts is the user's, and must not die when we quit.
func openerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_BREAKAWAY_FROM_JOB}
}
