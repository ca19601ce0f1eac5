package proc

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"
)

// Handle refers to one process whose identity was verified after the handle
// was opened. On Linux it holds a pidfd and on Windows a process handle: both
// keep naming the same process even if it exits and its PID is reused, so a
// signal sent through a Handle can never reach a stranger. On macOS, which
// has neither, the identity is re-checked immediately before each signal.
type Handle struct {
	id Identity
	os osHandle
	// pgid is the process group seen when the handle was opened by a tree
	// walk; 0 when unknown.
	pgid      int
	closeOnce sync.Once
	closeErr  error
}

// Open opens a handle on the process named by id. It returns ErrNotFound if
// the process is gone and ErrMismatch if its PID now belongs to another
// process. The handle must be closed.
func Open(id Identity) (*Handle, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	h, err := openHandle(id.PID)
	if err != nil {
		return nil, err
	}
	// Checked after opening: if the PID had been reused before the open,
	// the start marker read now differs and we refuse.
	if err := Check(id); err != nil {
		h.close()
		return nil, err
	}
	return &Handle{id: id, os: h}, nil
}

// Identity returns the identity the handle was opened for.
func (h *Handle) Identity() Identity { return h.id }

// PGID returns the process group the process had when a tree walk pinned
// it, or 0 when the handle was not opened by a walk.
func (h *Handle) PGID() int { return h.pgid }

// Signal delivers sig. A process that has already exited yields ErrNotFound,
// which callers whose goal is "gone" treat as success.
func (h *Handle) Signal(sig syscall.Signal) error { return h.os.signal(h.id, sig) }

// Exited reports whether the process has exited (it may still be a zombie).
func (h *Handle) Exited() bool { return h.os.exited(h.id) }

// KillWait bounds the wait for a SIGKILLed process to disappear. SIGKILL
// cannot be caught, so only a process stuck in the kernel (uninterruptible
// sleep on a dead NFS mount, say) outlasts it; callers that wait longer
// than this report the survivor instead of hanging.
const KillWait = 5 * time.Second

// Wait blocks until the process exits or ctx ends. It reports whether the
// process exited.
func (h *Handle) Wait(ctx context.Context) bool { return h.os.wait(ctx, h.id) }

// Close releases the handle. It is safe to call more than once.
func (h *Handle) Close() error {
	h.closeOnce.Do(func() { h.closeErr = h.os.close() })
	return h.closeErr
}

// Signal opens a handle on id, signals it and closes the handle.
func Signal(id Identity, sig syscall.Signal) error {
	h, err := Open(id)
	if err != nil {
		return err
	}
	defer h.Close()
	return h.Signal(sig)
}

// IsGone reports whether err means the target no longer exists (or is no
// longer the process we meant): the success case when the goal was "gone".
func IsGone(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrMismatch)
}
