package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"hermes-desktop/backend/handoffwire"
	"hermes-desktop/backend/healthwindow"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
)

// updateHandoffTimeout bounds the handoff to a new version.
const updateHandoffTimeout = 2 * time.Minute

// ApplyUpdate installs the offered newer version and hands over to it, for
// callers with no answer to write first (the window, the scheduler). Once
// the new version serves, this instance is handed over (HandedOff closes);
// main then runs WatchUpdate before it exits.
func (l *Launcher) ApplyUpdate(ctx context.Context) (*update.Result, error) {
	res, err := l.applyUpdate(ctx)
	var committed errCommitted
	if err == nil || errors.As(err, &committed) {
		l.finishHandoff()
	}
	return res, err
}

// applyUpdate checks, downloads (or finds the download), verifies, stages,
// swaps and hands over. Before the handoff commits, any failure leaves
// this instance in charge with the old version in place; an errCommitted
// error means the new version owns the backends anyway.
func (l *Launcher) applyUpdate(ctx context.Context) (*update.Result, error) {
	u := l.upd
	if err := u.client.Load().Disabled(); err != nil {
		return nil, controlKind(err)
	}
	if err := u.acquire(ctx); err != nil {
		return nil, err
	}
	defer u.releaseSem()
	if err := l.updateAllowed(); err != nil {
		return nil, err
	}
	rel, err := l.checkRelease(ctx)
	if err != nil {
		return nil, controlKind(err)
	}
	in, err := update.Inspect(l.cfg.Self)
	if err != nil {
		return nil, err
	}
	if !in.SelfManaged() {
		cmd := in.UpdateCommand(rel.Version)
		u.set(func(i *update.Info) { i.Command = cmd })
		return nil, controlKind(fmt.Errorf("%w: %s %s is available, but %s; update it with: %s", update.ErrManaged, "Hermes Desktop", rel.Version, in.Why(), cmd))
	}
	artifact, err := l.download(ctx)
	if err != nil {
		return nil, err
	}
	return l.install(ctx, rel, in, artifact)
}

// install stages and smoke-tests the download, records the health window,
// swaps the new version in and hands over to it; it puts the old version
// back if the handoff fails before the commit.
func (l *Launcher) install(ctx context.Context, rel *update.Release, in update.Install, artifact string) (*update.Result, error) {
	u := l.upd
	start := time.Now()
	u.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateApplying, "", "" })
	l.events.Publish(model.Event{Kind: model.EventStatus})
	staged, err := update.Stage(ctx, artifact, in, rel.Version)
	if err != nil {
		return nil, l.updateFailed(err)
	}
	p := update.Probation{Version: rel.Version, Previous: l.cfg.Version, Target: in.Target, Exe: in.Exe,
		Watcher: l.self, Started: time.Now(), Window: l.cfg.UpdateHealthWindow}
	if err := update.WriteProbation(u.dir, p); err != nil {
		os.RemoveAll(staged) // our own staged copy
		return nil, l.updateFailed(err)
	}
	baseline := l.crashCounts()
	u.swapping.Store(true)
	defer u.swapping.Store(false)
	if err := update.Swap(staged, in.Target); err != nil {
		_ = update.ClearProbation(u.dir)
		return nil, l.updateFailed(err)
	}
	l.cfg.Logger.Info("update: swapped in; handing over", "version", rel.Version, "path", in.Target.Path)
	succ, res, err := l.handoff(ctx, handoffwire.Args{To: in.Exe, Mode: updateHandoffMode(), TimeoutNS: int64(updateHandoffTimeout)})
	var committed errCommitted
	if err != nil && !errors.As(err, &committed) {
		if rerr := update.Restore(in.Target); rerr != nil {
			err = fmt.Errorf("%w; and putting the old version back failed: %v", err, rerr)
		} else {
			err = fmt.Errorf("%w; the old version is back in place", err)
		}
		_ = update.ClearProbation(u.dir)
		return nil, l.updateFailed(err)
	}
	u.watch.Store(&updateWatch{succ: succ, Watch: healthwindow.Watch{
		PID: succ.cmd.Process.Pid, Exited: succ.exited, ExitState: func() *os.ProcessState { return succ.cmd.ProcessState },
		Probation: p, Baseline: baseline, StateDir: l.cfg.StateDir,
	}})
	fmt.Fprintf(l.cfg.Announce, "update: %s -> %s: pid %d serves; watching it for %v\n", l.cfg.Version, rel.Version, res.NewPID, p.Window)
	out := &update.Result{From: l.cfg.Version, To: rel.Version, NewPID: res.NewPID, ElapsedMS: float64(time.Since(start).Microseconds()) / 1000}
	return out, err
}

// updateFailed records a failed apply in the status and returns the error
// with its control kind.
func (l *Launcher) updateFailed(err error) error {
	l.upd.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err) })
	l.events.Publish(model.Event{Kind: model.EventStatus})
	l.cfg.Logger.Warn("update failed", "err", err)
	return controlKind(err)
}

// crashCounts is each backend's crash count, the baseline against which
// the health window tells a crash loop.
func (l *Launcher) crashCounts() map[string]int {
	out := map[string]int{}
	for _, s := range l.supervisors() {
		st := s.Status()
		out[st.Name] = st.Crashes
	}
	return out
}
