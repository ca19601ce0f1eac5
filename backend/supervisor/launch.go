package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
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
		setContainment(st, info)
	})
	if err != nil || s.cur == nil {
		return err // refused, or the spawn failed and moved on
	}
	readyCtx, cancel := context.WithCancel(ctx)
	ch := make(chan readyResult, 1) // never blocks the sender, even after we stop listening
	s.readyCh, s.stopReady = ch, cancel
	p := s.cur
	go func() {
		port, err := p.AwaitReady(readyCtx)
		ch <- readyResult{inst: p, port: port, err: err}
	}()
	info := p.Info()
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
	if r := p.Record(0); r != nil {
		err = s.records.Write(r)
	}
	if err != nil {
		// Without a record we could not prove this backend is ours after a
		// crash; do not run it. Stopped before Release, a shim still at its
		// start barrier exits at once.
		_ = p.Stop()
		_ = s.fail(fmt.Sprintf("cannot write the ownership record: %v", err))
		return false
	}
	s.cur, s.curPort, s.curReported = p, 0, p.Info().PID != 0
	if p.Info().Remote != nil {
		s.live.Store(&liveRun{p})
	}
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
	if err := s.move(model.StateStarting, s.halted, edit); err != nil {
		return err
	}
	return s.launch(ctx)
}

func (s *Supervisor) onReady(r readyResult) error {
	s.readyCh = nil
	if r.inst != s.cur {
		return nil // a result about an instance we already stopped
	}
	if r.err != nil {
		return s.notReady(r.err)
	}
	url := "http://" + net.JoinHostPort(reap.ProbeHost(reap.ParseShape(s.spec.Command).Host), strconv.Itoa(r.port))
	now := time.Now()
	return s.move(model.StateReady, func() bool {
		s.startTimeouts, s.curPort = 0, r.port
		if err := s.writeRecord(); err != nil {
			s.log.Warn("update record with port", "err", err)
		}
		s.clock.Ready(now)
		return true
	}, func(st *model.BackendStatus) {
		st.PID, st.Port, st.URL, st.ReadyAt, st.LastError = r.inst.Info().PID, r.port, url, &now, ""
		st.PageURL = ""
		if s.spec.ServesPage() {
			st.PageURL = url + "/"
		}
	})
}

// notReady handles a start that did not become ready: a crash, or, after
// too many in a row, a failure.
func (s *Supervisor) notReady(err error) error {
	if errors.Is(err, instance.ErrExitedEarly) || errors.Is(err, context.Canceled) {
		return nil // the exit is handled where it is noticed
	}
	s.out.Add("launcher", "not ready: "+err.Error())
	s.startTimeouts++
	if s.startTimeouts > s.policy.Max {
		return s.fail(fmt.Sprintf("%s; it did not become ready in %d starts in a row, giving up", err, s.startTimeouts))
	}
	return s.onCrash(err.Error())
}

// sample looks at the running backend's tree, applies the leak guard, and
// publishes the sample; a restart policy that fires restarts the backend.
func (s *Supervisor) sample(ctx context.Context) {
	if s.clock.Off() || s.cur == nil {
		return
	}
	s.refreshRemote()
	sm, err := s.cur.Sample()
	if err != nil {
		return // not known yet, or exiting: the exit is handled where it is seen
	}
	if sm.RecordChanged {
		if err := s.writeRecord(); err != nil {
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

// publishTree keeps the sample in the status, and tells the window only
// when something a person would notice changed: the processes, the
// warnings, or the memory by more than a tenth. At rest, nothing is sent:
// the status (and `status --json`) still has each sample, its SampledAt
// saying when the tree was last checked and its ChangedAt since when it
// looks the same, so the page can say "unchanged since" honestly.
func (s *Supervisor) publishTree(ts *leakguard.TreeSample) {
	s.mu.Lock()
	if s.st.Tree == nil {
		s.shownTree = nil // the window was told there is no tree
	}
	changed := treeChanged(s.shownTree, ts)
	ts.ChangedAt = ts.SampledAt
	if !changed {
		ts.ChangedAt = s.shownTree.ChangedAt
		s.st.Tree = ts
	}
	s.mu.Unlock()
	if changed {
		s.shownTree = ts
		s.edit(func(st *model.BackendStatus) { st.Tree = ts })
	}
}

func treeChanged(old, now *leakguard.TreeSample) bool {
	if old == nil || now == nil {
		return old != now
	}
	if old.Count != now.Count || len(old.Warnings) != len(now.Warnings) {
		return true
	}
	for i := range old.Processes {
		if old.Processes[i].PID != now.Processes[i].PID {
			return true
		}
	}
	for i := range old.Warnings {
		if old.Warnings[i] != now.Warnings[i] {
			return true
		}
	}
	diff := now.RSSBytes - old.RSSBytes
	return diff*10 > old.RSSBytes || -diff*10 > old.RSSBytes
}

// adopt takes over a running instance from the previous launcher: it is
// ready, its record already names us.
func (s *Supervisor) adopt(p instance.Process, prev model.BackendStatus) {
	now := time.Now()
	info := p.Info()
	_ = s.move(model.StateStarting, func() bool {
		s.cur, s.curPort, s.curReported = p, prev.Port, true
		return true
	}, nil)
	_ = s.move(model.StateReady, nil, func(st *model.BackendStatus) {
		st.PID, st.Port, st.URL, st.PageURL, st.Restarts, st.Crashes = info.PID, prev.Port, prev.URL, prev.PageURL, prev.Restarts, prev.Crashes
		st.LastRestart, st.Nonce, st.Started, st.ReadyAt = prev.LastRestart, info.Nonce, prev.Started, &now
		if prev.ReadyAt != nil { // the same process, ready all along: its uptime goes on
			st.ReadyAt = prev.ReadyAt
		}
		st.ShimPID = info.ShimPID
		setContainment(st, info)
	})
	s.log.Info("adopted from the previous launcher", "pid", info.PID, "port", prev.Port)
}

// onReported records the backend's identity once the shim has told us.
func (s *Supervisor) onReported() {
	s.curReported = true
	if err := s.writeRecord(); err != nil {
		s.log.Warn("update record with backend identity", "err", err)
	}
	info := s.cur.Info()
	s.edit(func(st *model.BackendStatus) {
		st.PID, st.ShimPID = info.PID, info.ShimPID
		setContainment(st, info)
		if info.Remote != nil {
			st.Command = info.Argv // what runs there, as the remote watchdog resolved it
		}
	})
}

// setContainment shows what holds the run's tree.
func setContainment(st *model.BackendStatus, info instance.Info) {
	st.Containment, st.ContainmentReason, st.Cgroup = info.Containment, info.Reason, info.Cgroup
	st.Remote = remoteStatus(info.Remote)
}

// remoteStatus is the status' view of a run on another host (nil for a
// local run).
func remoteStatus(r *instance.RemoteInfo) *model.RemoteStatus {
	if r == nil {
		return nil
	}
	rs := &model.RemoteStatus{
		Connection: r.Connection, Attempt: r.Attempt, Platform: r.Platform, Port: r.Port,
		LockDir: r.LockDir, Error: r.Error,
	}
	if !r.NextAttempt.IsZero() {
		t := r.NextAttempt
		rs.NextAttempt = &t
	}
	if r.Latency > 0 {
		rs.LatencyMS = float64(r.Latency.Microseconds()) / 1000
	}
	return rs
}

// refreshRemote shows a remote run's connection as it is now (its state,
// latency), publishing only a change a person would notice: latency
// within a tenth, or a millisecond, is not one.
func (s *Supervisor) refreshRemote() {
	now := remoteStatus(s.cur.Info().Remote)
	if now == nil {
		return
	}
	s.mu.Lock()
	old := s.st.Remote
	s.mu.Unlock()
	if old != nil && sameRemote(*old, *now) {
		return
	}
	s.edit(func(st *model.BackendStatus) { st.Remote = now })
}

func sameRemote(a, b model.RemoteStatus) bool {
	la, lb := a.LatencyMS, b.LatencyMS
	a.LatencyMS, b.LatencyMS = 0, 0
	na, nb := a.NextAttempt, b.NextAttempt
	a.NextAttempt, b.NextAttempt = nil, nil
	if a != b || (na == nil) != (nb == nil) || (na != nil && !na.Equal(*nb)) {
		return false
	}
	d := la - lb
	return (d < 1 && d > -1) || (d*10 < lb && -d*10 < lb)
}

// writeRecord writes the running instance's ownership record again. A run
// with no local record (one on another host, whose ownership lives there)
// writes nothing.
func (s *Supervisor) writeRecord() error {
	r := s.cur.Record(s.curPort)
	if r == nil {
		return nil
	}
	return s.records.Write(r)
}
