//go:build unix

package handles

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Private keeps fd from every child we start later: close-on-exec.
func Private(fd uintptr) error {
	if _, err := unix.FcntlInt(fd, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fmt.Errorf("handles: fd %d: close-on-exec: %w", fd, err)
	}
	return nil
}

// Take wraps an fd our parent passed down as a file of ours: private, and
// non-blocking, so its reads go through the runtime poller and a deadline
// or Close interrupts them.
func Take(fd uintptr, name string) (*os.File, error) {
	if err := Private(fd); err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(int(fd), true); err != nil {
		return nil, fmt.Errorf("handles: fd %d: set non-blocking: %w", fd, err)
	}
	return os.NewFile(fd, name), nil
}

// InterruptRead ends the reads in progress on fs, which must be pollable
// (Take, or a pipe Go made): a deadline in the past wakes them at once.
// returned is not needed here (see the Windows counterpart).
func InterruptRead(_ <-chan struct{}, fs ...*os.File) {
	for _, f := range fs {
		_ = f.SetReadDeadline(time.Now())
	}
}
