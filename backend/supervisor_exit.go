package backend

import (
	"context"
	"fmt"
	"hermes-desktop/backend/hermes"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
)

// onExit handles an exit nobody asked for. Not every one is a crash: a
// Hermes that found a backend already running attached to it, one that
// refused to start a second is a failure to show rather than retry, and one
// that `hermes update` killed to replace the executable is restarted
// without counting against the crash-loop breaker.
func (s *Supervisor) onExit(ctx context.Context) {
	inst := s.cur
	if u, ok := inst.AttachURL(); ok && s.curPort == 0 {
		if ext, ok := instance.NewExternal(u); ok {
			s.finish(inst)
			s.cur = nil
			s.enterExternal(ext)
			return
		}
	}
	exe, replaced := inst.ExecutableReplaced()
	switch {
	case inst.ExitStatus().Code == hermes.ExitRefused:
		s.finish(inst)
		s.cur = nil
		s.fail(fmt.Sprintf("Hermes refused to start another backend (%s): stop the other one or change the profile", inst.ExitStatus()))
	case replaced:
		s.finish(inst)
		s.cur = nil
		const why = "Hermes was updated: backend restarted"
		s.log.Info(why, "executable", exe)
		s.out.Add("launcher", why)
		s.update(model.StateStarting, func(st *model.BackendStatus) { st.Restarts++; st.LastRestart = why })
		s.launch(ctx)
	default:
		s.onCrash(fmt.Sprintf("backend %s", inst.ExitStatus()))
	}
}

// enterExternal shows the backend someone else runs as ours to use, not
// ours to manage: no PID, no record, never signalled.
func (s *Supervisor) enterExternal(ext *instance.External) {
	s.ext = ext
	s.log.Info("attached to a Hermes backend already running", "url", ext.Page)
	s.out.Add("launcher", "Hermes is already running at "+ext.Page+": attached to it (it is not ours: never stopped or restarted by us)")
	s.update(model.StateExternal, func(st *model.BackendStatus) {
		st.PID, st.ShimPID, st.Port, st.URL, st.PageURL = 0, 0, ext.Port, ext.Page, ext.Page
		st.LastError, st.Tree = "", nil
	})
}

// checkExternal checks the attached backend; when it has gone away, our
// own is started.
func (s *Supervisor) checkExternal(ctx context.Context) {
	if s.ext.Alive(ctx) {
		s.ext.Failures = 0
		return
	}
	s.ext.Failures++
	if s.ext.Failures < instance.ExternalFailures {
		return
	}
	s.out.Add("launcher", "the Hermes backend at "+s.ext.Page+" went away: starting our own")
	s.leaveExternal()
	s.update(model.StateStarting, nil)
	s.launch(ctx)
}

// leaveExternal forgets the attached backend, if any, without touching it.
func (s *Supervisor) leaveExternal() {
	if s.ext != nil {
		s.ext.Stop()
		s.ext = nil
	}
}
