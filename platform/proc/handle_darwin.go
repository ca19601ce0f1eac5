package proc

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// osHandle on macOS pins nothing: there is no pidfd. Each signal re-checks
// the start marker immediately before kill(2); macOS PIDs wrap at 99,999, so
// the window is one syscall long.
type osHandle struct{ pid int }

func openHandle(pid int) (osHandle, error) { return osHandle{pid: pid}, nil }

func (h osHandle) signal(id Identity, sig syscall.Signal) error {
	if err := Check(id); err != nil {
		return err
	}
	err := unix.Kill(id.PID, sig)
	if errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return fmt.Errorf("proc: signal %v to %s: %w", sig, id, err)
	}
	return nil
}

func (h osHandle) exited(id Identity) bool {
	alive, err := Alive(id)
	return err == nil && !alive
}

// wait uses kqueue's EVFILT_PROC/NOTE_EXIT, the blocking primitive macOS
// offers for a process that is not our child.
func (h osHandle) wait(ctx context.Context, id Identity) bool {
	kq, err := unix.Kqueue()
	if err != nil {
		return pollUntilGone(ctx, id)
	}
	defer unix.Close(kq)
	ev := unix.Kevent_t{Ident: uint64(id.PID), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return true
		}
		return pollUntilGone(ctx, id)
	}
	// Registered after the open: re-check so an exit in between is not missed.
	if h.exited(id) {
		return true
	}
	out := make([]unix.Kevent_t, 1)
	for {
		wait := 50 * time.Millisecond
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			wait = max(time.Until(dl), 0)
		}
		ts := unix.NsecToTimespec(wait.Nanoseconds())
		n, err := unix.Kevent(kq, nil, out, &ts)
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

func (h osHandle) close() error { return nil }
