package proc

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// osHandle is a pidfd, or -1 on kernels older than 5.3 where we fall back to
// check-then-kill (the race window is one syscall, and PIDs wrap at 4M).
type osHandle struct{ fd int }

func openHandle(pid int) (osHandle, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == nil:
		return osHandle{fd: fd}, nil
	case errors.Is(err, unix.ESRCH):
		return osHandle{}, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
	case errors.Is(err, unix.ENOSYS):
		return osHandle{fd: -1}, nil
	default:
		return osHandle{}, fmt.Errorf("proc: pidfd_open %d: %w", pid, err)
	}
}

func (h osHandle) signal(id Identity, sig syscall.Signal) error {
	var err error
	if h.fd >= 0 {
		err = unix.PidfdSendSignal(h.fd, unix.Signal(sig), nil, 0)
	} else {
		if err := Check(id); err != nil {
			return err
		}
		err = unix.Kill(id.PID, unix.Signal(sig))
	}
	if errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return fmt.Errorf("proc: signal %v to %s: %w", sig, id, err)
	}
	return nil
}

func (h osHandle) exited(id Identity) bool {
	if h.fd < 0 {
		alive, err := Alive(id)
		return err == nil && !alive
	}
	fds := []unix.PollFd{{Fd: int32(h.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

// wait polls the pidfd, which becomes readable when the process exits.
func (h osHandle) wait(ctx context.Context, id Identity) bool {
	if h.fd < 0 {
		return pollUntilGone(ctx, id)
	}
	for {
		timeout := -1
		if dl, ok := ctx.Deadline(); ok {
			timeout = int(time.Until(dl).Milliseconds()) + 1
			if timeout < 0 {
				timeout = 0
			}
		} else if ctx.Done() != nil {
			timeout = 50 // a cancel without deadline: notice it within 50 ms
		}
		fds := []unix.PollFd{{Fd: int32(h.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, timeout)
		if err == nil && n > 0 {
			return true
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			return pollUntilGone(ctx, id)
		}
		if ctx.Err() != nil {
			return h.exited(id)
		}
	}
}

func (h osHandle) close() error {
	if h.fd < 0 {
		return nil
	}
	err := unix.Close(h.fd)
	if errors.Is(err, unix.EBADF) {
		return nil
	}
	return err
}
