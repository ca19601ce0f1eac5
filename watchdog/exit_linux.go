package watchdog

import (
	"context"
	"errors"

	"golang.org/x/sys/unix"

	"hermes-desktop/platform/proc"
)

// exitWatch is a pidfd on the parent: it becomes readable when the parent
// exits (pidfd_open(2), Linux 5.3). fd -1 means the parent was already
// gone when the watch was armed.
type exitWatch struct{ fd int }

// armExit opens the pidfd. ok is false when pidfds are unavailable (kernel
// < 5.3), leaving the other mechanisms, getppid() polling included, to do
// the work.
func armExit(p Parent) (w exitWatch, ok bool) {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return exitWatch{fd: -1}, errors.Is(err, unix.ESRCH)
	}
	// Opened first, checked second: if the PID was reused before the open,
	// the marker no longer matches and the parent we meant is gone.
	if p.Start != "" {
		if alive, err := proc.Alive(p.identity()); err == nil && !alive {
			unix.Close(fd)
			return exitWatch{fd: -1}, true
		}
	}
	return exitWatch{fd: fd}, true
}

// wait blocks until the parent exits (true) or ctx ends (false).
func (w exitWatch) wait(ctx context.Context) bool {
	if w.fd < 0 {
		return true
	}
	cancelR, cancelW, err := pipe()
	if err != nil {
		return false
	}
	defer unix.Close(cancelR)
	stop := context.AfterFunc(ctx, func() { unix.Close(cancelW) })
	defer func() {
		if stop() {
			unix.Close(cancelW)
		}
	}()
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(cancelR), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		return fds[0].Revents != 0 && ctx.Err() == nil
	}
}

func (w exitWatch) close() {
	if w.fd >= 0 {
		unix.Close(w.fd)
	}
}

func pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, err
	}
	return p[0], p[1], nil
}
