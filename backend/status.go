package backend

import (
	"context"
	"errors"
	"fmt"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/handoffwire"
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
	l.noticeMu.Lock()
	st.Notices = append([]string(nil), l.notices...)
	l.noticeMu.Unlock()
	boot, last := l.ReapReports()
	st.BootReap = boot
	if last != boot {
		st.LastReap = last
	}
	st.Backends = make([]model.BackendStatus, 0, 4)
	for _, s := range l.supervisors() {
		b := s.Status()
		// The built-in backend's path (a hashed file in the state dir) means
		// nothing to a person: the page names it instead.
		b.Builtin = len(b.Command) > 0 && b.Command[0] == l.cfg.Core
		st.Backends = append(st.Backends, b)
	}
	return st
}

// handleControl answers the control socket.
func (l *Launcher) handleControl(ctx context.Context, req control.Request) (any, error) {
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
		case <-l.backendsGone: // answer only once the trees are gone
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
	case control.OpReap:
		var args model.ReapArgs
		if err := req.DecodeArgs(&args); err != nil {
			return nil, err
		}
		return l.Reap(ctx, args.DryRun, args.MinAgeDuration(), args.Only)
	case control.OpLogs:
		var args model.LogsArgs
		if err := req.DecodeArgs(&args); err != nil {
			return nil, err
		}
		return l.Logs(req.Backend, args.After, args.Max)
	}
	return l.handleHandoffControl(ctx, req)
}

// handleHandoffControl answers the operations that hand the instance over:
// handoffs, and updates (the Updater answers those).
func (l *Launcher) handleHandoffControl(ctx context.Context, req control.Request) (any, error) {
	switch req.Op {
	case control.OpHandoff:
		var args handoffwire.Args
		if err := req.DecodeArgs(&args); err != nil {
			return nil, err
		}
		return l.deferFinish(l.Handoff(ctx, args))
	case control.OpHandoffCommit:
		var args handoffwire.CommitArgs
		if err := req.DecodeArgs(&args); err != nil {
			return nil, err
		}
		return map[string]bool{"committed": true}, l.commit(ctx, args)
	case control.OpUpdateCheck, control.OpUpdateApply, control.OpUpdateSkip:
		return l.upd.HandleControl(ctx, req)
	}
	return nil, fmt.Errorf("%w %q", control.ErrUnknownOp, req.Op)
}

// deferFinish answers a handoff's outcome: once the successor owns the
// backends (success, or an error after the commit), the instance finishes
// after the answer is written.
func (l *Launcher) deferFinish(res any, err error) (any, error) {
	var committed errCommitted
	if err == nil || errors.As(err, &committed) {
		return control.Deferred{Result: res, Err: err, Then: l.finishHandoff}, nil
	}
	return nil, err
}
