package backend

import (
	"context"
	"fmt"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/model"
)

// Status returns the instance's current status.
func (l *Launcher) Status() model.Status {
	st := model.Status{Instance: model.InstanceInfo{
		PID: l.self.PID, StateDir: l.cfg.StateDir, Nonce: l.nonce, Mode: l.cfg.Mode,
		Version: l.cfg.Version, Started: l.started, Shim: !l.cfg.NoShim,
		Update: l.upd.Status(),
	}}
	_, st.Instance.RestartToApply = l.upd.NewExecutable()
	st.Notices = l.notices.all()
	boot, last := l.reaps.reports()
	st.BootReap = boot
	if last != boot {
		st.LastReap = last
	}
	st.Backends = make([]model.BackendStatus, 0, 4)
	for _, s := range l.sups.all() {
		b := s.Status()
		// The built-in backend's path (a hashed file in the state dir) means
		// nothing to a person: the page names it instead.
		b.Builtin = len(b.Command) > 0 && b.Command[0] == l.cfg.Core
		st.Backends = append(st.Backends, b)
	}
	return st
}

// controlHandler answers the control socket for the launcher l: its own
// operations here, a handoff's through the Sender, an update's through the
// Updater.
type controlHandler struct{ l *Launcher }

// HandleControl answers one request.
func (h controlHandler) HandleControl(ctx context.Context, req control.Request) (any, error) {
	l := h.l
	switch req.Op {
	case control.OpStatus:
		return l.Status(), nil
	case control.OpRestart:
		return nil, l.Restart(ctx, req.Backend)
	case control.OpPage, control.OpOpen:
		u, err := l.PageURL(req.Backend)
		if err == nil && req.Op == control.OpOpen {
			err = l.OpenExternal(u)
		}
		return map[string]string{"url": u}, err
	case control.OpStartBackend:
		return nil, l.StartBackend(ctx, req.Backend)
	case control.OpStopBackend:
		return nil, l.StopBackend(ctx, req.Backend)
	case control.OpStop:
		l.RequestStop()
		select {
		case <-l.stop.backendsGone: // answer only once the trees are gone
			return map[string]bool{"stopped": true}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case control.OpFocus:
		fn := l.focus.Load()
		if fn != nil {
			(*fn)()
		}
		return map[string]any{"focused": fn != nil, "mode": l.cfg.Mode}, nil
	}
	return h.handleArgs(ctx, req)
}

// handleArgs answers the operations that take arguments, and hands the
// handoff's and the update's to their objects.
func (h controlHandler) handleArgs(ctx context.Context, req control.Request) (any, error) {
	switch req.Op {
	case control.OpReap:
		var args model.ReapArgs
		if err := req.DecodeArgs(&args); err != nil {
			return nil, err
		}
		return h.l.Reap(ctx, args.DryRun, args.MinAgeDuration(), args.Only)
	case control.OpLogs:
		var args model.LogsArgs
		if err := req.DecodeArgs(&args); err != nil {
			return nil, err
		}
		return h.l.Logs(req.Backend, args.After, args.Max)
	case control.OpHandoff, control.OpHandoffCommit:
		return h.l.handoff.HandleControl(ctx, req)
	case control.OpUpdateCheck, control.OpUpdateApply, control.OpUpdateSkip:
		return h.l.upd.HandleControl(ctx, req)
	}
	return nil, fmt.Errorf("%w %q", control.ErrUnknownOp, req.Op)
}
