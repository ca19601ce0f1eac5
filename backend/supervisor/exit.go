package supervisor

import (
	"context"
	"fmt"
	"time"

	"hermes-desktop/backend/hermes"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
	"hermes-desktop/platform/human"
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
		if s.curPort == 0 {
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
func (s *Supervisor) enterExternal(ext *instance.External) error {
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
	if s.ext.Failures < instance.ExternalFailures {
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
	now := time.Now()
	var recent []time.Time
	for _, t := range s.crashes {
		if now.Sub(t) < s.policy.Window {
			recent = append(recent, t)
		}
	}
	if len(recent) >= s.policy.Max {
		s.crashes = recent
		return s.fail(fmt.Sprintf("%s; restarted %d times within %s, giving up", reason, len(recent), human.Duration(s.policy.Window)))
	}
	return s.move(model.StateRestarting, func() bool {
		s.halt()
		s.crashes = append(recent, now)
		s.timer = time.NewTimer(s.policy.Backoff << (len(s.crashes) - 1))
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
	if st.Remote != nil { // the connection's last word stays; the dead run's figures go
		st.Remote = &model.RemoteStatus{Connection: st.Remote.Connection, Platform: st.Remote.Platform, Error: st.Remote.Error}
	}
}

// halt stops whatever runs or is scheduled, synchronously. An attached
// backend is only let go of: it is not ours to stop.
func (s *Supervisor) halt() {
	s.leaveExternal()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.stopReady != nil {
		s.stopReady()
		s.stopReady = nil
	}
	s.readyCh = nil
	if s.cur == nil {
		return
	}
	if err := s.cur.Stop(); err != nil {
		s.log.Error("stop", "err", err)
	}
	s.finish(s.cur)
	s.cur = nil
}

// halted is halt as a move's act.
func (s *Supervisor) halted() bool {
	s.halt()
	return true
}

// finish removes the record of a run whose tree is gone. If the tree could
// not be confirmed gone, the record stays: it is the evidence the next
// boot's reaper needs.
func (s *Supervisor) finish(p instance.Process) {
	select {
	case <-p.Exited():
	default:
		return
	}
	if err := p.TreeGone(); err != nil {
		s.log.Error("the backend's tree may not be gone; its record stays for the next boot's reap", "err", err)
		return
	}
	if err := s.records.Remove(p.Info().Nonce); err != nil {
		s.log.Error("remove record", "err", err)
	}
}
