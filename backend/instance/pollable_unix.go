//go:build unix

package instance

import (
	"os"
	"syscall"
)

// pollable makes an inherited pipe non-blocking so reads go through the
// runtime poller and Close can interrupt them.
func pollable(f *os.File) { _ = syscall.SetNonblock(int(f.Fd()), true) }

// interruptReads has nothing to do on Unix: the pipes are non-blocking
// (pollable), so Close interrupts a read in progress.
func interruptReads(*output) {}
