package backend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"hermes-desktop/backend/remote"
	"hermes-desktop/backend/run"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/supervisor"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/contract/logs"
	"hermes-desktop/platform/cmdline"
)

// newSupervisor makes the supervisor of one backend of this launcher.
func (l *Launcher) newSupervisor(spec runspec.Spec) *supervisor.Supervisor {
	params := instance.Params{
		Owner: l.self, OwnerNonce: l.nonce, StateDir: l.cfg.StateDir,
		HermesHome: l.cfg.HermesHome, Self: l.cfg.Core, ViaShim: !l.cfg.NoShim,
		Log: l.logs.of(spec.Name), Reclaimer: l.subreaper.reclaimer, Contain: l.contain,
		LeakGuard: l.cfg.LeakGuard, Logger: l.cfg.Logger,
	}
	policy := supervisor.Policy{Max: l.cfg.MaxRestarts, Window: l.cfg.RestartWindow}
	var runner run.Runner = instance.Local{Params: params}
	if spec.Host != "" {
		runner = l.remoteRunner(spec.Host, params.Log)
	}
	return supervisor.New(spec, runner, params.Log, l.records, policy, l.cfg.LeakGuard.SampleInterval, l.cfg.Logger, l.onStatus)
}

// remoteRunner is the runner of a backend on host: over that host's one
// connection, made on first use; or, when there can be none, a runner
// whose every start fails at once saying why.
func (l *Launcher) remoteRunner(host string, log *logs.Log) run.Runner {
	if err := os.MkdirAll(filepath.Join(l.cfg.StateDir, "ssh"), 0o700); err != nil {
		return failedRunner{err}
	}
	if _, err := l.remotes.Get(host); err != nil {
		return failedRunner{err}
	}
	return remote.Runner{Machine: func() (*remote.Machine, error) { return l.remotes.Get(host) }, Log: log, DisconnectGrace: l.remotes.DisconnectGrace(),
		LeakGuard: l.cfg.LeakGuard, Logger: l.cfg.Logger, Reaped: l.reaps.addRemote}
}

// claimHandedOver claims a backend on another host a predecessor handed
// over (a, nil for none) with runner, the spec's remote runner: a run that
// claims it over this app's own connection (remote.Runner.Claim); when the
// claim fails, the run ends and the supervisor starts the backend anew.
func claimHandedOver(runner run.Runner, a *handoff.RemoteAdopted, spec runspec.Spec, logger *slog.Logger) (run.Process, model.BackendStatus, bool) {
	r, ok := runner.(remote.Runner)
	if a == nil || !ok {
		return nil, model.BackendStatus{}, false
	}
	p, err := r.Claim(&spec, a.Handover)
	if err != nil {
		logger.Error("handoff: claim a remote backend", "backend", spec.Name, "err", err)
		return nil, model.BackendStatus{}, false
	}
	return p, a.Prev, true
}

// failedRunner starts nothing: its error wraps fs.ErrPermission, so the
// backend fails at once instead of retrying what cannot work.
type failedRunner struct{ err error }

func (f failedRunner) Start(*runspec.Spec) (run.Process, error) {
	return nil, fmt.Errorf("%w (%w)", f.err, fs.ErrPermission)
}

// AddBackend adds a backend while the launcher runs and starts it unless
// it is disabled. Saving it to the settings is the caller's part.
func (l *Launcher) AddBackend(spec runspec.Spec) error {
	l.prep.await()
	if l.cfg.Explicit != nil {
		l.cfg.Explicit(&spec)
	}
	if err := spec.ApplyDefaults(l.cfg.Core); err != nil {
		return fmt.Errorf("%w: %w", errkind.ErrBadRequest, err)
	}
	sup := l.newSupervisor(spec)
	if err := l.sups.AddRunning(sup); err != nil {
		return err
	}
	st := sup.Status()
	l.events.Publish(model.Event{Kind: model.EventStatus, Backend: &st})
	return nil
}

// RemoveBackend stops a backend (its whole tree) and forgets it.
func (l *Launcher) RemoveBackend(ctx context.Context, name string) error {
	s, err := l.sups.Find(name)
	if err != nil {
		return err
	}
	if err := s.Stop(ctx); err != nil {
		return err
	}
	l.sups.Remove(s)
	select {
	case <-s.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	l.events.Publish(model.Event{Kind: model.EventStatus})
	return nil
}

// Restart restarts the named backend, or all backends when name is "".
// A backend the user stopped stays stopped: restarting it by name is
// refused, saying that Start starts it (the tray's Restart NAME started
// it without a word), and restarting all passes it by.
func (l *Launcher) Restart(ctx context.Context, name string) error {
	if name != "" {
		s, err := l.sups.Find(name)
		if err != nil {
			return err
		}
		if s.Status().State == model.StateStopped {
			return fmt.Errorf("%w: backend %s is stopped; Start starts it", errkind.ErrRefused, name)
		}
		return s.Restart(ctx)
	}
	var errs []error
	for _, s := range l.sups.All() {
		if s.Status().State != model.StateStopped {
			errs = append(errs, s.Restart(ctx))
		}
	}
	return errors.Join(errs...)
}

// StartBackend starts a stopped or failed backend, or every one when name
// is "".
func (l *Launcher) StartBackend(ctx context.Context, name string) error {
	if name == "" {
		var errs []error
		for _, s := range l.sups.All() {
			errs = append(errs, s.Start(ctx))
		}
		return errors.Join(errs...)
	}
	s, err := l.sups.Find(name)
	if err != nil {
		return err
	}
	return s.Start(ctx)
}

// StopBackend stops one backend and leaves it stopped.
func (l *Launcher) StopBackend(ctx context.Context, name string) error {
	s, err := l.sups.Find(name)
	if err != nil {
		return err
	}
	return s.Stop(ctx)
}

// Logs returns up to max lines of a backend's output after seq.
func (l *Launcher) Logs(name string, after uint64, max int) ([]logs.Line, error) {
	s, err := l.sups.Find(name)
	if err != nil {
		return nil, err
	}
	return l.logs.of(s.Spec().Name).Since(after, max), nil
}

// BackendSettings describes the running list as settings, for saving it
// after a change in the window: each backend as it was configured, with
// its own ready pattern, health path and grace (not the shared ones it
// took); one made from flags as it runs.
func (l *Launcher) BackendSettings() []settings.Backend {
	var specs []runspec.Spec
	for _, s := range l.sups.All() {
		specs = append(specs, s.Spec())
	}
	return settingsOf(specs)
}

// settingsOf describes backends as settings (see BackendSettings); a
// spec's empty name and kind are the defaults ApplyDefaults gives them.
func settingsOf(specs []runspec.Spec) []settings.Backend {
	var out []settings.Backend
	for _, spec := range specs {
		if spec.Setting.Name != "" {
			out = append(out, spec.Setting)
			continue
		}
		b := settings.Backend{Name: cmp.Or(spec.Name, DefaultName), Kind: spec.Kind, Args: spec.Args, Host: spec.Host}
		if b.Kind == "" {
			b.Kind = settings.KindDashboard
			if len(spec.Command) > 0 {
				b.Kind = settings.KindCustom
			}
		}
		if b.Kind == settings.KindCustom {
			b.Command = cmdline.Join(spec.Command)
			b.Args = nil
		}
		if spec.Disabled {
			b.Enabled = new(bool)
		}
		out = append(out, b)
	}
	return out
}
