package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/run"
)

// launch starts a new run and starts watching for its readiness. It ends
// in starting, or, when the spawn fails, in failed or restarting: all three
// are checked against the table before anything is done.
func (s *Supervisor) launch(ctx context.Context) error {
	if err := s.allow(model.StateStarting, model.StateFailed, model.StateRestarting); err != nil {
		return err
	}
	var started time.Time
	err := s.move(model.StateStarting, func() bool {
		s.halt()
		ok := s.spawn()
		started = time.Now()
		return ok
	}, func(st *model.BackendStatus) {
		info := s.cur.Info()
		st.PID, st.ShimPID, st.Port, st.URL, st.PageURL = info.PID, info.ShimPID, 0, "", ""
		st.Nonce, st.Started, st.ReadyAt, st.LogTail, st.Tree = info.Nonce, &started, nil, nil, nil
		setRun(st, info, s.cur.connection())
	})
	if err != nil || s.cur == nil {
		return err // refused, or the spawn failed and moved on
	}
	s.cur.awaitReady(ctx)
	info := s.cur.Info()
	leader := info.ShimPID
	if leader == 0 {
		leader = info.PID
	}
	s.log.Info("started", "pid", leader, "argv", info.Argv)
	return nil
}

// spawn starts a run, records it and lets it start. When a step fails it
// moves on (to failed, or restarting) and reports false.
func (s *Supervisor) spawn() bool {
	p, err := s.runner.Start(&s.spec)
	if err != nil {
		s.out.Add("launcher", err.Error())
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			_ = s.fail(fmt.Sprintf("cannot start %q: %v", s.spec.Command[0], err))
			return false
		}
		_ = s.onCrash(err.Error())
		return false
	}
	cur := newCurrent(p)
	if err := cur.writeRecord(s.records); err != nil {
		// Without a record we could not prove this backend is ours after a
		// crash; do not run it. Stopped before Release, a shim still at its
		// start barrier exits at once.
		_ = p.Stop()
		_ = s.fail(fmt.Sprintf("cannot write the ownership record: %v", err))
		return false
	}
	cur.reported = p.Info().PID != 0
	s.setCurrent(cur)
	if err := p.Release(); err != nil {
		s.out.Add("launcher", err.Error()) // the shim saw EOF and exits: handled as a crash
	}
	return true
}

// relaunch ends what runs and launches anew, counting a restart for why
// ("" counts none).
func (s *Supervisor) relaunch(ctx context.Context, why string) error {
	var edit func(*model.BackendStatus)
	if why != "" {
		edit = func(st *model.BackendStatus) { st.Restarts++; st.LastRestart = why }
	}
	if err := s.move(model.StateStarting, s.halt, edit); err != nil {
		return err
	}
	return s.launch(ctx)
}

func (s *Supervisor) onReady(r readyResult) error {
	if r.p != s.cur.process() {
		return nil // a result about a run we already stopped
	}
	if s.cur != nil {
		s.cur.ready = nil
	}
	if r.err != nil {
		return s.notReady(r.err)
	}
	url := "http://" + net.JoinHostPort(reap.ProbeHost(reap.ParseShape(s.spec.Command).Host), strconv.Itoa(r.port))
	now := time.Now()
	return s.move(model.StateReady, func() bool {
		s.restarts.startTimeouts, s.cur.port = 0, r.port
		if err := s.cur.writeRecord(s.records); err != nil {
			s.log.Warn("update record with port", "err", err)
		}
		s.clock.Ready(now)
		return true
	}, func(st *model.BackendStatus) {
		st.PID, st.Port, st.URL, st.ReadyAt, st.LastError = r.p.Info().PID, r.port, url, &now, ""
		st.PageURL = ""
		if s.spec.ServesPage() {
			st.PageURL = url + "/"
		}
	})
}

// notReady handles a start that did not become ready: a crash, or, after
// too many in a row, a failure.
func (s *Supervisor) notReady(err error) error {
	if errors.Is(err, run.ErrExitedEarly) || errors.Is(err, context.Canceled) {
		return nil // the exit is handled where it is noticed
	}
	s.out.Add("launcher", "not ready: "+err.Error())
	if why := s.restarts.timedOut(err); why != "" {
		return s.fail(why)
	}
	return s.onCrash(err.Error())
}

// sample looks at the running backend's tree, applies the leak guard, and
// publishes the sample; a restart policy that fires restarts the backend.
func (s *Supervisor) sample(ctx context.Context) {
	if s.clock.Off() || s.cur == nil {
		return
	}
	s.showConnection(s.cur.connection())
	if s.cur.can.Sampler == nil {
		return // a tree this machine does not sample: the status shows its connection instead
	}
	sm, err := s.cur.can.Sampler.Sample()
	if err != nil {
		return // not known yet, or exiting: the exit is handled where it is seen
	}
	if sm.RecordChanged {
		if err := s.cur.writeRecord(s.records); err != nil {
			s.log.Warn("update record with descendants", "err", err)
		}
	}
	s.publishTree(sm.Tree)
	if sm.Restart != "" {
		s.log.Warn("leak guard restarts the backend", "reason", sm.Restart)
		s.out.Add("launcher", sm.Restart)
		_ = s.relaunch(ctx, sm.Restart)
	}
}

// adopt takes over a running instance from the previous launcher: it is
// ready, its record already names us.
func (s *Supervisor) adopt(p run.Process, prev model.BackendStatus) {
	now := time.Now()
	info := p.Info()
	_ = s.move(model.StateStarting, func() bool {
		s.setCurrent(newCurrent(p))
		s.cur.port, s.cur.reported = prev.Port, true
		return true
	}, nil)
	_ = s.move(model.StateReady, nil, func(st *model.BackendStatus) {
		st.PID, st.Port, st.URL, st.PageURL, st.Restarts, st.Crashes = info.PID, prev.Port, prev.URL, prev.PageURL, prev.Restarts, prev.Crashes
		st.LastRestart, st.Nonce, st.Started, st.ReadyAt = prev.LastRestart, info.Nonce, prev.Started, &now
		if prev.ReadyAt != nil { // the same process, ready all along: its uptime goes on
			st.ReadyAt = prev.ReadyAt
		}
		st.ShimPID = info.ShimPID
		setRun(st, info, s.cur.connection())
	})
	s.log.Info("adopted from the previous launcher", "pid", info.PID, "port", prev.Port)
}

// onReported records the backend's identity once the shim has told us.
func (s *Supervisor) onReported() {
	s.cur.reported = true
	if err := s.cur.writeRecord(s.records); err != nil {
		s.log.Warn("update record with backend identity", "err", err)
	}
	info, conn := s.cur.Info(), s.cur.connection()
	s.edit(func(st *model.BackendStatus) {
		st.PID, st.ShimPID = info.PID, info.ShimPID
		setRun(st, info, conn)
		if info.Command != nil {
			st.Command = info.Command
		}
	})
}

// setCurrent makes cur the run the supervisor serves (nil: none). A run
// with a connection is read live by Status from now on: an adopted remote
// run connects and claims after the adoption, and not every state change
// is signalled (its card said "not connected" until the next one). Without
// a run, the status keeps what it last saw, not the host's connection now.
func (s *Supervisor) setCurrent(cur *current) {
	s.cur = cur
	if cur == nil || cur.can.Connected == nil {
		s.live.Store(nil)
		return
	}
	s.live.Store(&liveConnection{cur.can.Connected})
}

// setRun shows what holds the run's tree, and its connection (nil for a
// run without one).
func setRun(st *model.BackendStatus, info run.Info, conn *model.RemoteStatus) {
	st.Containment, st.ContainmentReason, st.Cgroup = info.Containment, info.Reason, info.Cgroup
	st.Remote = conn
}
