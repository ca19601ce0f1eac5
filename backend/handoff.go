package backend

import (
	"context"
	"time"

	"hermes-desktop/backend/handoffwire"
)

// An update is a handoff from the running instance (old) to a new binary
// (new), so that no backend is orphaned or duplicated:
//
//   - restart: old tears its backends down (records removed), lets go of its
//     locks and socket, starts new detached and exits once new answers on
//     the control socket. New boots normally (reap, spawn).
//   - adopt: the backends keep running. Old starts new with the lifeline
//     write ends and the output pipes inherited and the handoff state on a
//     pipe. New verifies each backend, then commits over old's control
//     socket; old stops supervising without teardown and lets go; new takes
//     the locks, rewrites the records to name itself, tells each shim its
//     new owner down the lifeline, and listens. Old exits once new answers.
//
// Before the commit, a failure leaves old in charge with its backends
// untouched; after it, old exits whatever happens, and a later boot reap
// removes what a dead successor would leave.

// HandedOff is closed once a successor owns everything: the launcher must
// exit without tearing anything down.
func (l *Launcher) HandedOff() <-chan struct{} { return l.handedOff }

// errCommitted wraps an error met after the successor committed: this
// instance must exit all the same.
type errCommitted struct{ error }

func (e errCommitted) Unwrap() error { return e.error }

// RestartSelf hands this instance over to a new run of its own executable,
// which reads the settings saved since this one started. With keepBackends
// the backends keep running (an adopt handoff, where the platform has one);
// without, they are stopped first and the new instance starts them anew, as
// a setting given to a backend as it starts (its grace period, its command)
// needs. Once the new instance serves, this one is handed over (HandedOff
// closes).
func (l *Launcher) RestartSelf(ctx context.Context, keepBackends bool) (*handoffwire.Result, error) {
	mode := handoffwire.ModeRestart
	if keepBackends && adoptSupported() == nil {
		mode = handoffwire.ModeAdopt
	}
	succ, res, err := l.handoff(ctx, handoffwire.Args{To: l.cfg.Self, Mode: mode, TimeoutNS: int64(2 * time.Minute)})
	if succ != nil { // the new instance owns the backends, error or not
		l.finishHandoff()
	}
	return res, err
}
