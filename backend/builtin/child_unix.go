//go:build unix

package builtin

import "syscall"

func childAttr(newSession bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: newSession}
}
