// Package run is what one run of a backend is to the Supervisor that owns
// it, wherever it runs: the Process every run is, the abilities only some
// runs have (a local ownership record, samples of the tree, a handover to
// an update's successor, a live connection to another host), which the
// Supervisor asks for once (AbilitiesOf), and the words both kinds of run
// share (Info, Exit, ExitStatus, readiness, the ready-port matcher). The
// local run (backend/instance) and the run on another host
// (backend/remote) are peers that implement it; neither imports the other.
package run

import (
	"context"
	"os"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// Runner starts backends: the seam between a Supervisor and wherever its
// backend runs. The launcher gives each Supervisor its Runner (a backend
// with a host gets the remote one); the Supervisor only ever holds a
// Runner and the Processes it returns.
//
// Start starts spec's command; behind a shim, the backend waits at the
// shim's start barrier until the owner has written the Process's record
// (Recorder) and calls Release. An error that wraps fs.ErrNotExist or
// fs.ErrPermission means the command cannot run (the backend fails at
// once); any other is treated as a crash and retried.
type Runner interface {
	Start(spec *runspec.Spec) (Process, error)
}

// Process is one run of a backend, as its Supervisor sees it. Its methods
// are called by the Supervisor's goroutine only, except where said.
type Process interface {
	// Release lets the backend start; its record, if it has one, is
	// written.
	Release() error
	// BackendKnown is closed once the backend's identity is known (at once
	// without a shim).
	BackendKnown() <-chan struct{}
	// Info is what the status shows of the run; its PIDs are 0 until known.
	Info() Info
	// Token is the session token the backend was given ("" for a
	// dashboard). Show it only when the user asks; never log it.
	Token() string
	// AwaitReady waits, within the spec's start timeout, until the backend
	// announced its port and its health endpoint answers, and returns the
	// port this machine reaches it on. Called on a goroutine of its own;
	// it returns ErrExitedEarly when the backend exited first.
	AwaitReady(ctx context.Context) (port int, err error)
	// Exited is closed once the backend's tree is gone.
	Exited() <-chan struct{}
	// Exit says how the run ended; valid once Exited is closed.
	Exit() Exit
	// Stop tears the tree down (TERM, grace, KILL) and waits until it is
	// gone. Idempotent. Before Release it ends the run at once.
	Stop() error
	// TreeGone is nil when nothing of the tree can be left; otherwise it
	// says what may still hold processes (its record must then stay).
	TreeGone() error
}

// Recorder is a run with an ownership record on this machine, written by
// the owner before Release and again when port (0 until ready) or the
// descendants (Sampler) change. A run elsewhere has none: its ownership
// lives on its host, and the local boot reap must never take its PIDs for
// local ones.
type Recorder interface {
	Record(port int) *lockfile.Record
}

// Sampler is a run whose tree is sampled: by this machine once per call
// (its members kept for the teardown and the record), or by its host's
// watchdog (the latest sample it sent); the leak guard's warnings and
// policies applied. It returns leakguard.ErrGone while there is no
// backend (or no sample yet).
type Sampler interface {
	Sample() (Sampled, error)
}

// Transferable is a run an update's successor can adopt by its files. A
// run that is not is claimed by the successor (RemoteTransferable) or
// started anew, and letting go of it ends it.
type Transferable interface {
	// Handover is what a successor needs to adopt the running backend;
	// its Job, a copy, is the caller's to close.
	Handover() (Handover, error)
	// Detach lets go of the backend without teardown: a successor owns it.
	Detach()
}

// RemoteTransferable is a run on another host that an update's successor
// can claim over its own connection (remotewd's claim socket): nothing
// crosses to it but what RemoteHandover holds.
type RemoteTransferable interface {
	// HandOver tells the host's watchdog that a successor will claim the
	// backend within window with a one-time secret, and returns what the
	// successor needs. Called before Detach.
	HandOver(window time.Duration) (RemoteHandover, error)
	// Detach lets go of the backend without teardown: the lifeline
	// closes, and the watchdog there waits for the claim.
	Detach()
}

// RemoteHandover is what a successor needs to claim a run on another host.
type RemoteHandover struct {
	Host                    string // the destination, as the settings name it
	OwnershipID, SpawnNonce string
	// Secret is the one-time secret of the claim (valid once, within
	// the window).
	Secret string
	Nonce  string // the run's local nonce (its status')
	Token  string // the session token ("" for a dashboard)
	Shim   proc.Identity
	// Backend is the backend's identity on its host.
	Backend     proc.Identity
	ClaimSocket string // on the host
	RemotePort  int    // the backend's port there
	// Socket is, for a backend isolated in a network namespace of its own,
	// the socket its port is reached through (the forward's target, not
	// RemotePort); "" otherwise.
	Socket    string
	LocalPort int // the forward's port here
	// Listener is the forward's listening socket, passed where the
	// handoff passes files (nil: the successor listens on LocalPort anew).
	Listener *os.File
}

// Connected is a run reached over a connection to another host, whose
// state the status shows as it is now.
type Connected interface {
	// Connection is the connection as it is now; safe to call from any
	// goroutine (the status reads it between samples).
	Connection() Connection
	// ConnectionChanged delivers a value when the connection's state
	// changed, so the window hears it at once.
	ConnectionChanged() <-chan struct{}
}

// Abilities are what a run can do beyond Process; a nil field is an
// ability it lacks.
type Abilities struct {
	Recorder  Recorder
	Sampler   Sampler
	Transfer  Transferable
	Connected Connected
	// RemoteTransfer: a run on another host a successor can claim.
	RemoteTransfer RemoteTransferable
}

// AbilitiesOf asks p once for each ability.
func AbilitiesOf(p Process) Abilities {
	var a Abilities
	a.Recorder, _ = p.(Recorder)
	a.Sampler, _ = p.(Sampler)
	a.Transfer, _ = p.(Transferable)
	a.Connected, _ = p.(Connected)
	a.RemoteTransfer, _ = p.(RemoteTransferable)
	return a
}

// Info is what the status shows of a run.
type Info struct {
	// PID is the backend's (0 until known); ShimPID its watchdog's (0
	// without one). A run on another host gives that host's PIDs.
	PID, ShimPID int
	// Nonce is the key of the run's record (its HERMES_PARENT_NONCE here).
	Nonce string
	// Argv is what was executed: the shim's command line, or the backend's.
	Argv []string
	// Command, when set, is what the status shows as the backend's
	// command instead of its spec's (the argv a remote watchdog resolved).
	Command []string
	// Containment is what holds the tree, Reason why nothing stronger,
	// Cgroup its cgroup ("" when none).
	Containment model.Containment
	Reason      string
	Cgroup      string
}

// Connection is a connection to another host as the status shows it (see
// model.RemoteStatus, which the Supervisor fills from it).
type Connection struct {
	Host        string
	State       string // connected, reconnecting, ...
	Attempt     int
	NextAttempt time.Time
	Platform    string
	Port        int // the backend's port there; 0 once the run ended
	Latency     time.Duration
	LockDir     string
	Error       string
	// Isolation is "netns" (the backend runs in a network namespace of its
	// own: no other account on the host reaches it) or "none" (its Port is
	// open to every account there; IsolationReason says why); "" until the
	// remote watchdog said.
	Isolation, IsolationReason string
}

// Sampled is one look at a run's tree.
type Sampled struct {
	// Tree is the sample, its warnings set and the duplicates the leak
	// guard stopped left out.
	Tree *leakguard.TreeSample
	// Restart says why a leak guard policy restarts the backend ("" for
	// no restart).
	Restart string
	// RecordChanged: the descendants the Record lists changed.
	RecordChanged bool
}

// Exit is how a run ended, with what the Supervisor decides on.
type Exit struct {
	Status ExitStatus
	// Attach is the backend someone else runs that a Hermes which exited
	// 0, having printed a loopback URL, said is already running: reached
	// from here, its health checks paced by its own ticker. nil otherwise;
	// whoever does not take it stops it.
	Attach *External
	// Replaced is the backend's executable when it was replaced on disk
	// since the start, as `hermes update` does ("" otherwise).
	Replaced string
}

// Handover is what a successor needs of a running backend to adopt it in
// an update's handoff (handoff.View carries it).
type Handover struct {
	ViaShim bool
	Nonce   string
	Argv    []string
	Shim    proc.Identity
	Backend proc.Identity
	Token   string
	Cgroup  string
	// The lifeline's write end and the output pipes' read ends.
	Lifeline, Stdout, Stderr *os.File
	// Job is a copy of the handle of the kill-on-close job holding the
	// tree (Windows), which the holder of the Handover owns and closes
	// (the handoff, once it has passed it on); 0 where there is none.
	Job uintptr
}

const (
	// ShimKillMargin is extra time the launcher gives a watchdog (the
	// local shim, or the remote watchdog) beyond the grace period before
	// it ends the tree itself.
	ShimKillMargin = 2 * time.Second
	// ExitWait bounds the wait for a run's end after its teardown.
	ExitWait = 10 * time.Second
)
