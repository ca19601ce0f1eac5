package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/update"
)

// InstanceInfo describes the running launcher.
type InstanceInfo struct {
	PID      int       `json:"pid"`
	StateDir string    `json:"state_dir"`
	Nonce    string    `json:"nonce"`
	Mode     string    `json:"mode"`
	Version  string    `json:"version,omitempty"`
	Started  time.Time `json:"started_at"`
	Shim     bool      `json:"shim"`
	// RestartToApply is set once our executable was replaced on disk (a
	// package upgrade): a handoff to it applies the update.
	RestartToApply bool `json:"restart_to_apply,omitempty"`
	// Update is the self-update's state (see update.Info).
	Update *update.Info `json:"update,omitempty"`
}

// Status is what `status --json` prints.
type Status struct {
	Instance InstanceInfo    `json:"instance"`
	Backends []BackendStatus `json:"backends"`
	// BootReap is what the reap before the first spawn found; LastReap the
	// latest reap (on demand), when there was one since.
	BootReap *reap.Report `json:"boot_reap,omitempty"`
	LastReap *reap.Report `json:"last_reap,omitempty"`
	// Notices are things the user should know, in words.
	Notices []string `json:"notices,omitempty"`
}

// Status returns the instance's current status.
func (l *Launcher) Status() Status {
	st := Status{Instance: InstanceInfo{
		PID: l.self.PID, StateDir: l.cfg.StateDir, Nonce: l.nonce, Mode: l.cfg.Mode,
		Version: l.cfg.Version, Started: l.started, Shim: !l.cfg.NoShim,
		RestartToApply: l.ExecutableChanged(),
		Update:         l.UpdateStatus(),
	}}
	l.noticeMu.Lock()
	st.Notices = append([]string(nil), l.notices...)
	l.noticeMu.Unlock()
	boot, last := l.ReapReports()
	st.BootReap = boot
	if last != boot {
		st.LastReap = last
	}
	st.Backends = make([]BackendStatus, 0, 4)
	for _, s := range l.supervisors() {
		st.Backends = append(st.Backends, s.Status())
	}
	return st
}

// ReapArgs are the arguments of the reap operation.
type ReapArgs struct {
	DryRun bool `json:"dry_run"`
	// MinAge overrides the minimum orphan age, in nanoseconds: absent
	// (nil) means the configured age, 0 means no minimum.
	MinAge *int64 `json:"min_age_ns,omitempty"`
	// Only, when non-nil, limits the reap to these PIDs (see reap.Options).
	Only []int `json:"only,omitempty"`
}

// minAge is MinAge as a duration; nil when absent.
func (a ReapArgs) minAge() *time.Duration {
	if a.MinAge == nil {
		return nil
	}
	return new(time.Duration(*a.MinAge))
}

// LogsArgs are the arguments of the logs operation.
type LogsArgs struct {
	After uint64 `json:"after"`
	Max   int    `json:"max"`
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
		if fn == nil {
			return map[string]any{"focused": false, "mode": l.cfg.Mode}, nil
		}
		(*fn)()
		return map[string]any{"focused": true, "mode": l.cfg.Mode}, nil
	case control.OpReap:
		var args ReapArgs
		if len(req.Args) > 0 {
			if err := json.Unmarshal(req.Args, &args); err != nil {
				return nil, fmt.Errorf("reap: %w: %w", control.ErrBadRequest, err)
			}
		}
		return l.Reap(ctx, args.DryRun, args.minAge(), args.Only)
	case control.OpHandoff:
		var args HandoffArgs
		if err := json.Unmarshal(req.Args, &args); err != nil {
			return nil, fmt.Errorf("handoff: %w: %w", control.ErrBadRequest, err)
		}
		res, err := l.Handoff(ctx, args)
		var committed errCommitted
		switch {
		case err == nil:
			return control.Deferred{Result: res, Then: l.finishHandoff}, nil
		case errors.As(err, &committed):
			return control.Deferred{Err: err, Then: l.finishHandoff}, nil
		}
		return nil, err
	case control.OpHandoffCommit:
		var args HandoffCommitArgs
		if err := json.Unmarshal(req.Args, &args); err != nil {
			return nil, fmt.Errorf("handoff commit: %w: %w", control.ErrBadRequest, err)
		}
		return map[string]bool{"committed": true}, l.commit(ctx, args)
	case control.OpUpdateCheck:
		return l.CheckForUpdate(ctx, false)
	case control.OpUpdateApply:
		res, err := l.applyUpdate(ctx)
		var committed errCommitted
		switch {
		case err == nil:
			return control.Deferred{Result: res, Then: l.finishHandoff}, nil
		case errors.As(err, &committed):
			return control.Deferred{Err: err, Then: l.finishHandoff}, nil
		}
		return nil, err
	case control.OpUpdateSkip:
		var args update.SkipArgs
		if err := json.Unmarshal(req.Args, &args); err != nil {
			return nil, fmt.Errorf("update skip: %w: %w", control.ErrBadRequest, err)
		}
		return map[string]string{"skipped": args.Version}, l.SkipVersion(args.Version)
	case control.OpLogs:
		var args LogsArgs
		if len(req.Args) > 0 {
			if err := json.Unmarshal(req.Args, &args); err != nil {
				return nil, fmt.Errorf("logs: %w: %w", control.ErrBadRequest, err)
			}
		}
		return l.Logs(req.Backend, args.After, args.Max)
	}
	return nil, fmt.Errorf("%w %q", control.ErrUnknownOp, req.Op)
}
