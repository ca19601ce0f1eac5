//go:build unix

package backend

import (
	"os"
	"syscall"
)

// successorAttr starts a handoff's successor in a session of its own: it
// must outlive us, and a terminal's hangup must not reach it.
func successorAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// adoptSupported: inherited fds carry the lifelines and pipes on Unix.
func adoptSupported() error { return nil }

// pollable makes an inherited pipe non-blocking so reads go through the
// runtime poller and Close can interrupt them.
func pollable(f *os.File) { _ = syscall.SetNonblock(int(f.Fd()), true) }
