package wsl

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// setProcAttr gives wsl.exe, a console program, no console window: the
// desktop app has none, and Windows would open one per command.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
}
