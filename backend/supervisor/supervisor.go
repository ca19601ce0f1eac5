// Package supervisor runs one backend each: the Supervisor, an actor whose
// one goroutine owns the running run.Process (started through the
// run.Runner seam) and moves it through its own state table (state.go:
// stopped, starting, ready, restarting, failed, external), checked before
// every move; and the List of a launcher's supervisors, which owns their
// goroutines.
package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
)

// Supervisor runs one backend: spawn, readiness, restart with backoff,
// teardown. One goroutine (serve) owns the running process and is the
// only writer of the state, which changes only through move and its table
// (state.go); everything else talks to it through commands. It reaches
// the process only through run.Runner, run.Process and the abilities the
// run has (current), so it knows nothing of where or how the backend
// runs.
type Supervisor struct {
	spec    runspec.Spec
	runner  run.Runner
	records *lockfile.Records
	log     *slog.Logger
	out     *logs.Log

	cmds chan command
	done chan struct{}
	// cancel ends serve; set once by the List before serve starts.
	cancel context.CancelFunc

	published // the status; its state changes only through move
	// live is the current run's connection when it has one: Status reads
	// it as it is now (state, latency), between the samples that publish
	// it. Set by spawn, cleared when the run exits.
	live atomic.Pointer[liveConnection]

	// Owned by the serve goroutine:
	cur      *current // nil when nothing runs
	restarts restarts
	// ext is the backend someone else runs that the command attached to
	// (state external); nil otherwise.
	ext *run.External
	// clock paces the samples; it runs only while there is a run.
	clock *leakguard.Clock
}

// liveConnection holds a run's connection for Status, which reads it from
// any goroutine.
type liveConnection struct{ c run.Connected }

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
func New(spec runspec.Spec, runner run.Runner, out *logs.Log, records *lockfile.Records, policy Policy, sampleEvery time.Duration, log *slog.Logger, notify func(st model.BackendStatus, entered bool)) *Supervisor {
	log = log.With("backend", spec.Name)
	if policy.Backoff <= 0 {
		policy.Backoff = defaultBackoff
	}
	s := &Supervisor{
		spec:     spec,
		runner:   runner,
		records:  records,
		log:      log,
		out:      out,
		restarts: restarts{policy: policy},
		clock:    leakguard.NewClock(sampleEvery),
		cmds:     make(chan command),
		done:     make(chan struct{}),
	}
	s.published = published{name: spec.Name, log: log, notify: notify,
		st: model.BackendStatus{Name: spec.Name, Kind: spec.Kind, State: model.StateStopped, Command: spec.Command, Host: spec.Host}}
	return s
}

// Status returns a copy of the backend's current status.
func (s *Supervisor) Status() model.BackendStatus {
	st := s.snapshot()
	if lc := s.live.Load(); lc != nil {
		st.Remote = remoteStatus(lc.c.Connection())
	}
	st.Command = append([]string(nil), st.Command...)
	st.LogTail = append([]string(nil), st.LogTail...)
	return st
}

// Spec is the backend's run spec, as given to New; it never changes.
func (s *Supervisor) Spec() runspec.Spec { return s.spec }

// Token asks the serve goroutine for the running instance's session token
// ("" when it has none, or runs none).
func (s *Supervisor) Token(ctx context.Context) (string, error) {
	r, err := s.call(ctx, cmdToken)
	return r.token, err
}

// HandoffView asks the serve goroutine for a copy of what a handoff needs of
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
func (s *Supervisor) Start(ctx context.Context) error {
	_, err := s.call(ctx, cmdStart)
	return err
}

// Stop tears the backend down and leaves it stopped.
func (s *Supervisor) Stop(ctx context.Context) error {
	_, err := s.call(ctx, cmdStop)
	return err
}

// Restart tears the backend down and starts it again, forgetting earlier
// crashes (this is also "Try again" after a failure).
func (s *Supervisor) Restart(ctx context.Context) error {
	_, err := s.call(ctx, cmdRestart)
	return err
}

// Detach hands the running instance over to the next launcher: the
// supervisor stops supervising it, without teardown, and its goroutine
// returns.
func (s *Supervisor) Detach(ctx context.Context) error {
	_, err := s.call(ctx, cmdDetach)
	return err
}

// Done is closed when the supervisor has stopped its backend and returned.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// serve is the supervisor's goroutine. It returns when ctx ends, after the
// backend is torn down and its record removed (or at once after a detach).
// It starts by adopting p when a previous launcher handed one over, else
// by launching a backend when autostart is set. A step the state table
// refuses has already been logged by move; serve carries on.
func (s *Supervisor) serve(ctx context.Context, autostart bool, p run.Process, prev model.BackendStatus) {
	defer close(s.done)
	switch {
	case p != nil:
		s.adopt(p, prev)
	case autostart:
		_ = s.launch(ctx)
	}
	defer s.clock.Stop()
	defer s.leaveExternal()
	for {
		var exited, reported, changed <-chan struct{}
		var timerC, externalC <-chan time.Time
		var ready <-chan readyResult
		if s.ext != nil {
			externalC = s.ext.Ticker.C
		}
		s.clock.Run(s.cur != nil)
		if s.cur != nil {
			exited, ready = s.cur.Exited(), s.cur.ready
			if !s.cur.reported {
				reported = s.cur.BackendKnown()
			}
			if s.cur.can.Connected != nil {
				changed = s.cur.can.Connected.ConnectionChanged()
			}
		}
		if s.restarts.timer != nil {
			timerC = s.restarts.timer.C
		}
		select {
		case <-ctx.Done():
			_ = s.move(model.StateStopped, s.halt, forgetRun)
			return
		case r := <-ready:
			_ = s.onReady(r)
			s.sample(ctx) // the first look at the tree, not one interval later
		case <-reported:
			s.onReported()
		case <-changed:
			s.showConnection(s.cur.connection())
		case <-exited:
			_ = s.onExit(ctx)
		case <-externalC:
			_ = s.checkExternal(ctx)
		case <-timerC:
			s.restarts.timer = nil
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
		err = s.move(model.StateStopped, s.halt, func(st *model.BackendStatus) {
			forgetRun(st)
			st.LastError = ""
		})
	case cmdStart:
		if s.cur != nil || s.restarts.timer != nil || s.ext != nil {
			return commandResult{}
		}
		s.restarts.forget()
		err = s.launch(ctx)
	case cmdRestart:
		err = s.restart(ctx)
	case cmdHandoffView:
		return s.handoffView()
	case cmdToken:
		if s.cur != nil {
			return commandResult{token: s.cur.Token()}
		}
	case cmdDetach:
		s.restarts.cancel()
		if s.cur != nil {
			s.cur.letGo()
			s.setCurrent(nil)
		}
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
	s.restarts.forget()
	switch {
	case s.cur != nil:
		return s.relaunch(ctx, "restarted on request")
	case s.ext != nil:
		return s.relaunch(ctx, "")
	}
	return s.launch(ctx)
}

// handoffView is what a handoff needs of the running, ready backend.
func (s *Supervisor) handoffView() commandResult {
	st := s.Status()
	switch {
	case s.ext != nil:
		return commandResult{view: handoff.View{Status: st, External: true}} // nothing of ours to hand over
	case s.cur == nil || st.State != model.StateReady || !s.cur.reported:
		return commandResult{err: errNotReady(s.spec.Name, st.State)}
	}
	v, err := s.cur.handoffView(st)
	return commandResult{view: v, err: err}
}
