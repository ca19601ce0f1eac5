package proc

import (
	"errors"
	"syscall"
	"time"
)

// ErrNoGracefulStop means the OS has no way to ask this process to stop:
// SIGTERM to an arbitrary process on Windows, which has no such signal (a
// console control event reaches only a console group we created, through
// SignalConsoleGroup). Terminate kills such a process at the first Escalate.
var ErrNoGracefulStop = errors.New("proc: no graceful stop for this process on windows")

// Stopper stops one process, paced by the caller's clock:
// SIGTERM now, SIGKILL at the first Escalate past the grace. Each step opens
// a handle on the identity (Open), so a recycled PID is never hit. The zero
// value is not usable; a Stopper is owned by one goroutine.
type Stopper struct {
	id       Identity
	deadline time.Time
	killed   bool
}

// Terminate sends SIGTERM to id and returns the Stopper that will SIGKILL
// it after grace. A process gone is no error. Where nothing can ask id to
// stop (ErrNoGracefulStop), the Stopper kills it at its first Escalate.
func Terminate(id Identity, grace time.Duration, now time.Time) (*Stopper, error) {
	err := Signal(id, syscall.SIGTERM)
	switch {
	case errors.Is(err, ErrNoGracefulStop):
		grace = 0
	case err != nil && !IsGone(err):
		return nil, err
	}
	return &Stopper{id: id, deadline: now.Add(grace)}, nil
}

// Identity is the process being stopped.
func (s *Stopper) Identity() Identity { return s.id }

// Escalate sends SIGKILL, once, when now is past the grace period.
func (s *Stopper) Escalate(now time.Time) {
	if s.killed || !now.After(s.deadline) {
		return
	}
	s.killed = true
	_ = Signal(s.id, syscall.SIGKILL)
}
