package watchdog

import (
	"context"
	"errors"

	"golang.org/x/sys/unix"

	"hermes-desktop/platform/proc"
)

// exitWatch is a kqueue with EVFILT_PROC/NOTE_EXIT registered for the
// parent; kq -1 means the parent was already gone when it was armed.
type exitWatch struct{ kq int }

// armExit registers the parent's exit with a new kqueue. ok is false when
// kqueue cannot watch it, leaving the other mechanisms to do the work.
func armExit(p Parent) (w exitWatch, ok bool) {
	kq, err := unix.Kqueue()
	if err != nil {
		return exitWatch{kq: -1}, false
	}
	change := []unix.Kevent_t{{Ident: uint64(p.PID), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	if _, err := unix.Kevent(kq, change, nil, nil); err != nil {
		unix.Close(kq)
		return exitWatch{kq: -1}, errors.Is(err, unix.ESRCH)
	}
	// Registered first, checked second, so an exit in between is not lost.
	if p.Start != "" {
		if alive, err := proc.Alive(p.identity()); err == nil && !alive {
			unix.Close(kq)
			return exitWatch{kq: -1}, true
		}
	}
	return exitWatch{kq: kq}, true
}

// wait blocks in kevent until the parent exits (true) or ctx ends (false),
// with a cancel pipe registered beside the exit filter.
func (w exitWatch) wait(ctx context.Context) bool {
	if w.kq < 0 {
		return true
	}
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
	change := []unix.Kevent_t{{Ident: uint64(cp[0]), Filter: unix.EVFILT_READ, Flags: unix.EV_ADD}}
	if _, err := unix.Kevent(w.kq, change, nil, nil); err != nil {
		return false
	}
	events := make([]unix.Kevent_t, 2)
	for {
		n, err := unix.Kevent(w.kq, nil, events, nil)
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

func (w exitWatch) close() {
	if w.kq >= 0 {
		unix.Close(w.kq)
	}
}
