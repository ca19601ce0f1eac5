// Package handoff hands a running instance (old) over to a new binary
// (new), so that no backend is orphaned or duplicated: old's side (the
// Sender), new's side (Receive) and the wire between them (wire.go), which
// both sides import, as watchdog/protocol.go is the shim's.
//
//   - restart: old tears its backends down (records removed), lets go of its
//     locks and socket, starts new detached and exits once new answers on
//     the control socket. New boots normally (reap, spawn).
//   - adopt: the backends keep running. Old starts new with the lifeline
//     write ends and the output pipes inherited (on Windows also the
//     launcher's kill-on-close job, which new joins, and each tree's) and
//     the handoff state on a pipe. New verifies each backend, then commits
//     over old's control socket; old stops supervising without teardown and
//     lets go; new takes the locks, rewrites the records to name itself,
//     tells each shim its new owner down the lifeline, and listens. Old
//     exits once new answers.
//
// Before the commit, a failure leaves old in charge with its backends
// untouched; after it, old exits whatever happens, and a later boot reap
// removes what a dead successor would leave.
//
// The package sees the launcher only through Launcher (old's side) and
// Receiving (new's side).
package handoff

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"hermes-desktop/backend/instance"
	"hermes-desktop/platform/proc"
)

// Launcher is what the Sender needs of the launcher it hands over, and all it
// sees of it. The launcher implements it.
type Launcher interface {
	// NewExecutable is the executable a package upgrade put in place of
	// ours, if any: what a handoff without a target applies.
	NewExecutable() (string, bool)
	// StopBackends tears every backend down and leaves it stopped (restart
	// mode); its error names the backend that did not stop.
	StopBackends(ctx context.Context) error
	// StartBackends starts every backend again, after a failed
	// restart-mode handoff took the state dir back.
	StartBackends(ctx context.Context)
	// Views describes every backend for an adopt-mode handoff, each copied
	// by its supervisor (the instance's only owner). Each view's Job is a
	// copy the Sender closes: on an error, the views gathered are
	// returned with it.
	Views(ctx context.Context) ([]View, error)
	// Detach makes every supervisor let go of its backend without tearing
	// it down, and stops finishing off orphans: from the commit on, the
	// backends are the successor's.
	Detach()
	// LetGo releases what a successor needs: the control socket and both
	// locks.
	LetGo()
	// TakeBack takes the locks and the socket back after a failed
	// restart-mode handoff and serves again. It fails once the launcher
	// shuts down: nothing is then taken back.
	TakeBack(ctx context.Context) error
}

// Config is what the Sender is built from: the launcher's configuration,
// its defaults filled in.
type Config struct {
	// StateDir is the instance's state directory.
	StateDir string
	// Exe is our own executable, what Relaunch starts again.
	Exe string
	// Args is the command line we were started with (without the program
	// name), which a successor is started with; none means "run".
	Args []string
	// Self and Nonce are this instance, as the successor is told.
	Self  proc.Identity
	Nonce string
	// LauncherJob is the kill-on-close job the launcher lives in
	// (Windows), which an adopt-mode successor joins; nil for none.
	LauncherJob *instance.LauncherJob
	// Logger receives the handoff's log; it must not be nil.
	Logger *slog.Logger
}

// Sender is old's side of a handoff: it checks and starts the successor,
// hands it the backends (adopt) or lets it boot anew (restart), answers its
// commit, and says when the instance is handed over.
type Sender struct {
	cfg      Config
	launcher Launcher

	// running is held through a handoff: one at a time.
	running sync.Mutex
	// awaiting is the adopt-mode successor whose commit is awaited; nil
	// outside that wait. The commit handler reads it from another
	// goroutine, hence the atomic.
	awaiting  atomic.Pointer[Successor]
	handedOff chan struct{} // closed once a successor owns everything
	handOnce  sync.Once
}

// NewSender makes old's side of a handoff for the launcher.
func NewSender(cfg Config, launcher Launcher) *Sender {
	return &Sender{cfg: cfg, launcher: launcher, handedOff: make(chan struct{})}
}

// HandedOff is closed once a successor owns everything: the launcher must
// exit without tearing anything down.
func (s *Sender) HandedOff() <-chan struct{} { return s.handedOff }

// Finish marks the instance as handed over; main exits without teardown.
// It is idempotent.
func (s *Sender) Finish() { s.handOnce.Do(func() { close(s.handedOff) }) }

// Busy says whether a successor's commit is awaited.
func (s *Sender) Busy() bool { return s.awaiting.Load() != nil }

// errCommitted wraps an error met after the successor committed: this
// instance must exit all the same.
type errCommitted struct{ error }

func (e errCommitted) Unwrap() error { return e.error }
