package watchdog

import (
	"context"
	"errors"

	"golang.org/x/sys/unix"

	"hermes-desktop/internal/proc"
)

// waitExit blocks on a pidfd of the parent until it exits. It returns false
// when ctx ends or pidfds are unavailable (kernel < 5.3), leaving the other
// mechanisms to do the work.
func waitExit(ctx context.Context, p Parent) bool {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH)
	}
	defer unix.Close(fd)
	// Opened first, checked second: if the PID was reused before the open,
	// the marker no longer matches and the parent we meant is gone.
	if p.Start != "" {
		if alive, err := proc.Alive(p.identity()); err == nil && !alive {
			return true
		}
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
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(cancelR), Events: unix.POLLIN}}
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

func pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, err
	}
	return p[0], p[1], nil
}
