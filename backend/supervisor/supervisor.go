// Package supervisor runs one backend each: the Supervisor, an actor whose
// one goroutine owns the running instance.Process (started through the
// instance.Runner seam) and moves it through its own state table (state.go:
// stopped, starting, ready, restarting, failed, external), checked before
// every move; and the List of a launcher's supervisors, which owns their
// goroutines. It must not import package backend (the launcher above it),
// internal/cli, internal/desktop, main or Wails.
package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/lockfile"
)

// Supervisor runs one backend: spawn, readiness, restart with backoff,
// teardown. One goroutine (run) owns the running process and is the only
// writer of the state, which changes only through move and its table
// (state.go); everything else talks to it through commands. It
// reaches the process only through instance.Runner and instance.Process,
// so it knows nothing of where or how the backend runs.
type Supervisor struct {
	spec    runspec.Spec
	runner  instance.Runner
	records *lockfile.Records
	log     *slog.Logger
	out     *logs.Log
	policy  Policy
	// notify is told about every state change (publish + announce).
	notify func(st model.BackendStatus, entered bool)

	cmds chan command
	done chan struct{}
	// cancel ends run; set once by the List before run starts.
	cancel context.CancelFunc

	mu sync.Mutex // guards st
	st model.BackendStatus
	// live is the current run when it is on another host: Status reads its
	// connection (state, latency) as it is now, between the samples that
	// publish it. Set by spawn, cleared when the run exits.
	live atomic.Pointer[liveRun]

	// Owned by the run goroutine:
	cur         instance.Process
	curPort     int  // 0 until ready
	curReported bool // the backend's identity is in the record
	readyCh     chan readyResult
	stopReady   context.CancelFunc
	crashes     []time.Time
	// startTimeouts counts the starts in a row that timed out before the
	// backend was ready: the crash window forgets the crashes a long start
	// timeout spaces out (60 s apart against a 2 min window), this does
	// not. Reset by a ready backend and by a Start or Restart request.
	startTimeouts int
	timer         *time.Timer
	// ext is the backend someone else runs that the command attached to
	// (state external); nil otherwise.
	ext *instance.External
	// clock paces the samples; it runs only while there is an instance.
	clock *leakguard.Clock
	// shownTree is the last tree sample the window was told of: a sample
	// is compared with it, not with the previous one, so that memory
	// growing by small steps is still shown once it grew by a tenth.
	shownTree *leakguard.TreeSample
}

// Policy is when a crashed backend is restarted. The zero Policy restarts
// nothing: the first crash fails the backend.
type Policy struct {
	// Max is how many crashes within Window are restarted before the
	// backend is failed; it also bounds the start timeouts in a row.
	Max int
	// Window is how far back crashes are counted.
	Window time.Duration
	// Backoff is the wait before the first automatic restart, doubled for
	// each further crash within Window; 0 means defaultBackoff.
	Backoff time.Duration
}

// defaultBackoff is the first restart's delay when the policy sets none.
const defaultBackoff = 250 * time.Millisecond

type readyResult struct {
	inst instance.Process
	port int
	err  error
}

type commandKind int

const (
	cmdStart commandKind = iota
	cmdStop
	cmdRestart
	cmdHandoffView // a copy of what a handoff needs of the running instance
	cmdToken       // the running instance's session token
	cmdDetach      // hand the running instance over: stop supervising, no teardown
)

type command struct {
	kind  commandKind
	reply chan commandResult
}

type commandResult struct {
	err   error
	view  handoff.View // cmdHandoffView only
	token string       // cmdToken only
}

// New makes the supervisor of spec's backend, run by runner, its lines in
// out, its ownership records in records; sampleEvery paces its tree samples
// (leakguard.Clock) and notify is told of every status change. It does not
// run until a List runs it.
func New(spec runspec.Spec, runner instance.Runner, out *logs.Log, records *lockfile.Records, policy Policy, sampleEvery time.Duration, log *slog.Logger, notify func(st model.BackendStatus, entered bool)) *Supervisor {
	log = log.With("backend", spec.Name)
	if policy.Backoff <= 0 {
		policy.Backoff = defaultBackoff
	}
	s := &Supervisor{
		spec:    spec,
		runner:  runner,
		records: records,
		log:     log,
		out:     out,
		policy:  policy,
		clock:   leakguard.NewClock(sampleEvery),
		notify:  notify,
		cmds:    make(chan command),
		done:    make(chan struct{}),
	}
	s.st = model.BackendStatus{Name: spec.Name, Kind: spec.Kind, State: model.StateStopped, Command: spec.Command, Host: spec.Host}
	return s
}

// connectionWatcher is a run on another host that says when its
// connection's state changes (connected, reconnecting), so the window
// hears it at once rather than at the next sample.
type connectionWatcher interface {
	ConnectionChanged() <-chan struct{}
}

// liveRun is a run whose Info is safe to read from any goroutine (a
// remote.Run's is).
type liveRun struct{ p instance.Process }

// Status returns a copy of the backend's current status.
func (s *Supervisor) Status() model.BackendStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	if lr := s.live.Load(); lr != nil && st.Remote != nil {
		st.Remote = remoteStatus(lr.p.Info().Remote)
	}
	st.Command = append([]string(nil), st.Command...)
	st.LogTail = append([]string(nil), st.LogTail...)
	return st
}

// do sends a command to the run goroutine and waits for its answer.
func (s *Supervisor) do(ctx context.Context, kind commandKind) error {
	_, err := s.call(ctx, kind)
	return err
}

// Spec is the backend's run spec, as given to New; it never changes.
func (s *Supervisor) Spec() runspec.Spec { return s.spec }

// Token asks the run goroutine for the running instance's session token
// ("" when it has none, or runs none).
func (s *Supervisor) Token(ctx context.Context) (string, error) {
	r, err := s.call(ctx, cmdToken)
	return r.token, err
}

// HandoffView asks the run goroutine for a copy of what a handoff needs of
// the running, ready backend.
func (s *Supervisor) HandoffView(ctx context.Context) (handoff.View, error) {
	r, err := s.call(ctx, cmdHandoffView)
	return r.view, err
}

func (s *Supervisor) call(ctx context.Context, kind commandKind) (commandResult, error) {
	c := command{kind: kind, reply: make(chan commandResult, 1)}
	select {
	case s.cmds <- c:
	case <-s.done:
		return commandResult{}, fmt.Errorf("backend %s: supervisor has stopped", s.spec.Name)
	case <-ctx.Done():
		return commandResult{}, ctx.Err()
	}
	select {
	case r := <-c.reply:
		return r, r.err
	case <-s.done:
		return commandResult{}, fmt.Errorf("backend %s: supervisor has stopped", s.spec.Name)
	}
}

// Start starts a stopped or failed backend (a no-op when it runs).
func (s *Supervisor) Start(ctx context.Context) error { return s.do(ctx, cmdStart) }

// Stop tears the backend down and leaves it stopped.
func (s *Supervisor) Stop(ctx context.Context) error { return s.do(ctx, cmdStop) }

// Restart tears the backend down and starts it again, forgetting earlier
// crashes (this is also "Try again" after a failure).
func (s *Supervisor) Restart(ctx context.Context) error { return s.do(ctx, cmdRestart) }

// Detach hands the running instance over to the next launcher: the
// supervisor stops supervising it, without teardown, and its goroutine
// returns.
func (s *Supervisor) Detach(ctx context.Context) error { return s.do(ctx, cmdDetach) }

// Done is closed when the supervisor has stopped its backend and returned.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// run is the supervisor's goroutine. It returns when ctx ends, after the
// backend is torn down and its record removed (or at once after a detach).
// It starts by adopting inst when a previous launcher handed one over, else
// by launching a backend when autostart is set. A step the state table
// refuses has already been logged by move; run carries on.
func (s *Supervisor) run(ctx context.Context, autostart bool, inst instance.Process, prev model.BackendStatus) {
	defer close(s.done)
	switch {
	case inst != nil:
		s.adopt(inst, prev)
	case autostart:
		_ = s.launch(ctx)
	}
	defer s.clock.Stop()
	defer s.leaveExternal()
	for {
		var exited, reported, changed <-chan struct{}
		var timerC, externalC <-chan time.Time
		if s.ext != nil {
			externalC = s.ext.Ticker.C
		}
		s.clock.Run(s.cur != nil)
		if s.cur != nil {
			exited = s.cur.Exited()
			if !s.curReported {
				reported = s.cur.BackendKnown()
			}
			if c, ok := s.cur.(connectionWatcher); ok {
				changed = c.ConnectionChanged()
			}
		}
		if s.timer != nil {
			timerC = s.timer.C
		}
		select {
		case <-ctx.Done():
			_ = s.move(model.StateStopped, s.halted, forgetRun)
			return
		case r := <-s.readyCh:
			_ = s.onReady(r)
			s.sample(ctx) // the first look at the tree, not one interval later
		case <-reported:
			s.onReported()
		case <-changed:
			s.refreshRemote()
		case <-exited:
			_ = s.onExit(ctx)
		case <-externalC:
			_ = s.checkExternal(ctx)
		case <-timerC:
			s.timer = nil
			_ = s.launch(ctx)
		case now := <-s.clock.C():
			s.sample(ctx)
			s.clock.Ticked(now)
		case c := <-s.cmds:
			c.reply <- s.handle(ctx, c.kind)
			if c.kind == cmdDetach {
				return // the instance belongs to the next launcher now
			}
		}
	}
}

func (s *Supervisor) handle(ctx context.Context, kind commandKind) commandResult {
	var err error
	switch kind {
	case cmdStop:
		err = s.move(model.StateStopped, s.halted, func(st *model.BackendStatus) {
			forgetRun(st)
			st.LastError = ""
		})
	case cmdStart:
		if s.cur != nil || s.timer != nil || s.ext != nil {
			return commandResult{}
		}
		s.crashes, s.startTimeouts = nil, 0
		err = s.launch(ctx)
	case cmdRestart:
		err = s.restart(ctx)
	case cmdHandoffView:
		return s.handoffViewOf()
	case cmdToken:
		if s.cur != nil {
			return commandResult{token: s.cur.Token()}
		}
	case cmdDetach:
		s.letGo()
	default:
		err = fmt.Errorf("backend: unknown command %d", kind)
	}
	return commandResult{err: err}
}

// restart tears down what runs and starts anew, forgetting earlier
// crashes. A running backend's restart is counted; an attached one is
// left first (starting, not counted: it was never ours), so that a spawn
// that fails then moves on from starting.
func (s *Supervisor) restart(ctx context.Context) error {
	s.crashes, s.startTimeouts = nil, 0
	switch {
	case s.cur != nil:
		return s.relaunch(ctx, "restarted on request")
	case s.ext != nil:
		return s.relaunch(ctx, "")
	}
	return s.launch(ctx)
}

// handoffViewOf is what a handoff needs of the running, ready backend.
func (s *Supervisor) handoffViewOf() commandResult {
	st := s.Status()
	if s.ext != nil {
		return commandResult{view: handoff.View{Status: st, External: true}} // nothing of ours to hand over
	}
	if s.cur == nil || st.State != model.StateReady || !s.curReported {
		return commandResult{err: fmt.Errorf("backend %s is %s, not ready: try the handoff again when it is", s.spec.Name, st.State)}
	}
	if s.cur.Info().Remote != nil {
		return commandResult{view: handoff.View{Status: st, Remote: true}}
	}
	return commandResult{view: handoff.View{Status: st, Handover: s.cur.Handover()}}
}

// letGo stops supervising without touching the backend: a new launcher
// has taken it over. Its record now names the new owner.
func (s *Supervisor) letGo() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.stopReady != nil {
		s.stopReady()
		s.stopReady = nil
	}
	if s.cur != nil {
		s.cur.Detach()
		s.cur = nil
	}
}
