package backend

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
