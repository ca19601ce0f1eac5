package watchdog

import (
	"context"
	"errors"

	"golang.org/x/sys/unix"

	"hermes-desktop/internal/proc"
)

// waitExit blocks in kqueue on EVFILT_PROC/NOTE_EXIT for the parent, with a
// cancel pipe registered beside it. It returns false when ctx ends or kqueue
// cannot watch the parent.
func waitExit(ctx context.Context, p Parent) bool {
	kq, err := unix.Kqueue()
	if err != nil {
		return false
	}
	defer unix.Close(kq)
	var cp [2]int
	if err := unix.Pipe(cp[:]); err != nil {
		return false
	}
	defer unix.Close(cp[0])
	stop := context.AfterFunc(ctx, func() { unix.Close(cp[1]) })
	defer func() {
		if stop() {
			unix.Close(cp[1])
		}
	}()
	changes := []unix.Kevent_t{
		{Ident: uint64(p.PID), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT},
		{Ident: uint64(cp[0]), Filter: unix.EVFILT_READ, Flags: unix.EV_ADD},
	}
	if _, err := unix.Kevent(kq, changes, nil, nil); err != nil {
		return errors.Is(err, unix.ESRCH)
	}
	// Registered first, checked second, so an exit in between is not lost.
	if p.Start != "" {
		if alive, err := proc.Alive(p.identity()); err == nil && !alive {
			return true
		}
	}
	events := make([]unix.Kevent_t, 2)
	for {
		n, err := unix.Kevent(kq, nil, events, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		for _, ev := range events[:n] {
			if ev.Filter == unix.EVFILT_PROC && ctx.Err() == nil {
				return true
			}
		}
		return false
	}
}
