package supervisor

import (
	"context"
	"fmt"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/contract/hermes"
)

// onExit handles an exit nobody asked for. Not every one is a crash: a
// Hermes that found a backend already running attached to it, one that
// refused to start a second is a failure to show rather than retry, and one
// that `hermes update` killed to replace the executable is restarted
// without counting against the crash-loop breaker.
func (s *Supervisor) onExit(ctx context.Context) error {
	s.live.Store(nil) // what the status shows of the run stays as it was last seen
	e := s.cur.Exit()
	if e.Attach != nil {
		if s.cur.port == 0 {
			return s.enterExternal(e.Attach)
		}
		e.Attach.Stop() // it was ready: its URL is its own, not another's
	}
	switch {
	case e.Status.Permanent:
		return s.fail(e.Status.String())
	case e.Status.Code == hermes.ExitRefused:
		return s.fail(fmt.Sprintf("Hermes refused to start another backend (%s): stop the other one or change the profile", e.Status))
	case e.Replaced != "":
		const why = "Hermes was updated: backend restarted"
		s.log.Info(why, "executable", e.Replaced)
		s.out.Add("launcher", why)
		return s.relaunch(ctx, why)
	}
	return s.onCrash(fmt.Sprintf("backend %s", e.Status))
}

// enterExternal shows the backend someone else runs as ours to use, not
// ours to manage: no PID, no record, never signalled.
func (s *Supervisor) enterExternal(ext *run.External) error {
	err := s.move(model.StateExternal, func() bool {
		s.halt() // the instance that found it has exited: its record goes
		s.ext = ext
		s.log.Info("attached to a Hermes backend already running", "url", ext.Page)
		s.out.Add("launcher", "Hermes is already running at "+ext.Page+": attached to it (it is not ours: never stopped or restarted by us)")
		return true
	}, func(st *model.BackendStatus) {
		st.PID, st.ShimPID, st.Port, st.URL, st.PageURL = 0, 0, ext.Port, ext.Page, ext.Page
		st.LastError, st.Tree = "", nil
	})
	if err != nil {
		ext.Stop()
	}
	return err
}

// checkExternal checks the attached backend; when it has gone away, our
// own is started.
func (s *Supervisor) checkExternal(ctx context.Context) error {
	if s.ext.Alive(ctx) {
		s.ext.Failures = 0
		return nil
	}
	s.ext.Failures++
	if s.ext.Failures < run.ExternalFailures {
		return nil
	}
	s.out.Add("launcher", "the Hermes backend at "+s.ext.Page+" went away: starting our own")
	return s.relaunch(ctx, "")
}

// leaveExternal forgets the attached backend, if any, without touching it.
func (s *Supervisor) leaveExternal() {
	if s.ext != nil {
		s.ext.Stop()
		s.ext = nil
	}
}

// onCrash handles an exit nobody asked for (or a start that failed): restart
// with backoff while the policy allows, else give up visibly.
func (s *Supervisor) onCrash(reason string) error {
	s.log.Warn("backend stopped unexpectedly", "reason", reason)
	s.out.Add("launcher", reason)
	giveUp, crashes := s.restarts.crashed(reason, time.Now())
	if giveUp != "" {
		return s.fail(giveUp)
	}
	return s.move(model.StateRestarting, func() bool {
		s.halt()
		s.restarts.schedule(crashes)
		return true
	}, func(st *model.BackendStatus) {
		st.Restarts++
		st.Crashes++
		forgetRun(st)
		st.LastError, st.LastRestart = reason, reason
	})
}

// fail gives up: what runs is torn down and the backend stays failed until
// a person starts it again.
func (s *Supervisor) fail(reason string) error {
	return s.move(model.StateFailed, func() bool {
		s.halt()
		s.log.Error("backend failed", "reason", reason)
		return true
	}, func(st *model.BackendStatus) {
		forgetRun(st)
		st.LastError = reason
		st.LogTail = s.out.Tail(20)
	})
}

// forgetRun clears what described the run that ended: its PIDs, its
// address (nothing must offer to open or copy a dead one), its tree and
// what held it.
func forgetRun(st *model.BackendStatus) {
	st.PID, st.ShimPID, st.Port, st.URL, st.PageURL = 0, 0, 0, "", ""
	st.Containment, st.ContainmentReason, st.Cgroup = "", "", ""
	st.Tree = nil
	st.Remote = lastWord(st.Remote)
}

// halt stops whatever runs or is scheduled, synchronously; as a move's
// act, it always gets there. An attached backend is only let go of: it is
// not ours to stop.
func (s *Supervisor) halt() bool {
	s.leaveExternal()
	s.restarts.cancel()
	if s.cur == nil {
		return true
	}
	s.cur.endWait()
	if err := s.cur.Stop(); err != nil {
		s.log.Error("stop", "err", err)
	}
	s.cur.finish(s.records, s.log)
	s.setCurrent(nil)
	return true
}
