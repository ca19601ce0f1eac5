package leakguard

import (
	"errors"
	"syscall"
	"time"

	"hermes-desktop/internal/proc"
)

// terminate starts stopping id. Windows cannot ask an arbitrary process to
// stop (proc.ErrNoGracefulStop: no SIGTERM), and proc's rule for that case
// is the one for a process that ignores SIGTERM: wait out the grace period,
// then kill. proc.Terminate returns no Stopper then, so killAfter does it.
func terminate(id proc.Identity, grace time.Duration, now time.Time) (stopper, error) {
	stop, err := proc.Terminate(id, grace, now)
	switch {
	case errors.Is(err, proc.ErrNoGracefulStop):
		return &killAfter{id: id, deadline: now.Add(grace)}, nil
	case err != nil:
		return nil, err
	}
	return stop, nil
}

// killAfter kills one process, once, when the grace period is over; the
// kill re-validates its identity (proc.Signal), so a recycled PID is never
// hit.
type killAfter struct {
	id       proc.Identity
	deadline time.Time
	killed   bool
}

func (k *killAfter) Identity() proc.Identity { return k.id }

func (k *killAfter) Escalate(now time.Time) {
	if k.killed || !now.After(k.deadline) {
		return
	}
	k.killed = true
	_ = proc.Signal(k.id, syscall.SIGKILL)
}
