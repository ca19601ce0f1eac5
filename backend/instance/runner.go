package instance

import (
	"context"
	"os"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// Runner starts backends: the seam between a Supervisor and wherever its
// backend runs. Local starts them on this machine behind the watchdog
// shim; backend/remote's Runner starts them on another host, over ssh,
// behind the remote watchdog. The Supervisor only ever holds a Runner and
// the Processes it returns: it knows no local PID, /proc or cgroup of its
// own. The launcher gives each Supervisor its Runner (a backend with a
// host gets the remote one).
//
// Start starts spec's command; behind a shim, the backend waits at the
// shim's start barrier until the owner has written the Process's Record
// and calls Release. An error that wraps fs.ErrNotExist or
// fs.ErrPermission means the command cannot run (the backend fails at
// once); any other is treated as a crash and retried.
type Runner interface {
	Start(spec *runspec.Spec) (Process, error)
}

// Process is one run of a backend, as its Supervisor sees it. Its methods
// are called by the Supervisor's goroutine only, except where said.
//
// A run on another host (backend/remote) differs so: Record is nil (its
// ownership lives on its host; the local boot reap must never take remote
// PIDs for local ones); Info's PIDs are the host's and Info.Remote is set,
// and its Info is safe to call from any goroutine (the status reads the
// connection live); AwaitReady's port is the local end of a forward;
// Sample answers leakguard.ErrGone (the tree there is not sampled from
// here); Handover is empty and Detach ends the run, since an update's
// successor starts remote backends anew (handoff.View.Remote).
type Process interface {
	// Record is the ownership record of this run, written by the owner
	// before Release and again when port (0 until ready) or the
	// descendants (Sample) change.
	Record(port int) *lockfile.Record
	// Release lets the backend start; the record is written.
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
	// announced its port and its health endpoint answers. Called on a
	// goroutine of its own; it returns ErrExitedEarly when the backend
	// exited first.
	AwaitReady(ctx context.Context) (port int, err error)
	// Sample samples the backend's tree once, keeps its members for the
	// teardown and the record, and applies the leak guard's warnings and
	// policies; it returns leakguard.ErrGone while there is no backend.
	Sample() (Sampled, error)
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
	// Handover is what a successor needs to adopt the running backend.
	Handover() Handover
	// Detach lets go of the backend without teardown: a successor owns it.
	Detach()
}

// Info is what the status shows of a run.
type Info struct {
	// PID is the backend's (0 until known); ShimPID its watchdog shim's
	// (0 without one).
	PID, ShimPID int
	// Nonce is the backend's HERMES_PARENT_NONCE, the key of its record.
	Nonce string
	// Argv is what was executed: the shim's command line, or the backend's.
	Argv []string
	// Containment is what holds the tree, Reason why nothing stronger,
	// Cgroup its cgroup ("" when none).
	Containment Containment
	Reason      string
	Cgroup      string
	// Remote is the run on another host (nil for a local one): PID and
	// ShimPID above are then that host's.
	Remote *RemoteInfo
}

// RemoteInfo is what the status shows of a run on another host (see
// model.RemoteStatus, which the Supervisor fills from it).
type RemoteInfo struct {
	Host        string
	Connection  string
	Attempt     int
	NextAttempt time.Time
	Platform    string
	Port        int
	Latency     time.Duration
	LockDir     string
	Error       string
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

// Handover is what a successor needs of a running instance to adopt it in
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
}

// Local runs backends on this machine: Spawn with its Params.
type Local struct {
	// Params are the launcher's; Spec is set by Start.
	Params Params
}

// Start spawns spec's command (Spawn).
func (l Local) Start(spec *runspec.Spec) (Process, error) {
	p := l.Params
	p.Spec = spec
	inst, err := Spawn(p)
	if err != nil {
		return nil, err // not a nil *Instance in a non-nil Process
	}
	return inst, nil
}

var _ Process = (*Instance)(nil)
