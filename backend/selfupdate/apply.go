package selfupdate

import (
	"context"
	"fmt"
	"os"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/update"
)

// handoffTimeout bounds the handoff to a new version.
const handoffTimeout = 2 * time.Minute

// Apply installs the offered newer version and hands over to it, for
// callers with no answer to write first (the window, the scheduler). Once
// the new version serves, the launcher is handed over (Host.HandedOver);
// main then runs WatchUpdate before it exits.
func (u *Updater) Apply(ctx context.Context) (*update.Result, error) {
	res, err := u.apply(ctx)
	if res != nil { // the new version owns the backends, error or not
		u.host.HandedOver()
	}
	return res, err
}

// apply checks, downloads (or finds the download), verifies, stages, swaps
// and hands over. Before the handoff commits, any failure leaves this
// instance in charge with the old version in place (no result); a result
// means the new version owns the backends, even with an error met after
// its commit.
func (u *Updater) apply(ctx context.Context) (*update.Result, error) {
	if err := u.client.Load().Disabled(); err != nil {
		return nil, err
	}
	if err := u.acquire(ctx); err != nil {
		return nil, err
	}
	defer u.releaseSem()
	if err := u.allowed(); err != nil {
		return nil, err
	}
	rel, err := u.checkRelease(ctx)
	if err != nil {
		return nil, err
	}
	in, err := update.Inspect(u.cfg.Exe)
	if err != nil {
		return nil, err
	}
	if !in.SelfManaged() {
		cmd := in.UpdateCommand(rel.Version)
		u.set(func(i *update.Info) { i.Command = cmd })
		return nil, fmt.Errorf("%w: %s %s is available, but %s; update it with: %s", update.ErrManaged, "Hermes Desktop", rel.Version, in.Why(), cmd)
	}
	artifact, err := u.download(ctx)
	if err != nil {
		return nil, err
	}
	return u.install(ctx, rel, in, artifact)
}

// install stages and smoke-tests the download, records the health window,
// swaps the new version in and hands over to it; it puts the old version
// back if the handoff fails before the commit.
func (u *Updater) install(ctx context.Context, rel *update.Release, in update.Install, artifact string) (*update.Result, error) {
	start := time.Now()
	u.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateApplying, "", "" })
	u.host.PublishStatus()
	staged, err := update.Stage(ctx, artifact, in, rel.Version)
	if err != nil {
		return nil, u.failed(err)
	}
	p := update.Probation{Version: rel.Version, Previous: u.cfg.Version, Target: in.Target, Exe: in.Exe,
		Watcher: u.cfg.Self, Started: time.Now(), Window: u.cfg.HealthWindow}
	if err := update.WriteProbation(u.dir, p); err != nil {
		os.RemoveAll(staged) // our own staged copy
		return nil, u.failed(err)
	}
	baseline := u.host.CrashCounts()
	u.swapping.Store(true)
	defer u.swapping.Store(false)
	if err := update.Swap(staged, in.Target); err != nil {
		_ = update.ClearProbation(u.dir)
		return nil, u.failed(err)
	}
	u.cfg.Logger.Info("update: swapped in; handing over", "version", rel.Version, "path", in.Target.Path)
	succ, err := u.host.HandOff(ctx, protocol.HandoffArgs{To: in.Exe, Mode: handoffMode(), TimeoutNS: int64(handoffTimeout)})
	if succ == nil {
		if rerr := update.Restore(in.Target); rerr != nil {
			err = fmt.Errorf("%w; and putting the old version back failed: %v", err, rerr)
		} else {
			err = fmt.Errorf("%w; the old version is back in place", err)
		}
		_ = update.ClearProbation(u.dir)
		return nil, u.failed(err)
	}
	u.watch.Store(&updateWatch{succ: succ, Watch: Watch{
		PID: succ.PID(), Exited: succ.Exited(), ExitState: succ.ExitState,
		Probation: p, Baseline: baseline, StateDir: u.cfg.StateDir,
	}})
	fmt.Fprintf(u.cfg.Announce, "update: %s -> %s: pid %d serves; watching it for %v\n", u.cfg.Version, rel.Version, succ.PID(), p.Window)
	out := &update.Result{From: u.cfg.Version, To: rel.Version, NewPID: succ.PID(), ElapsedMS: float64(time.Since(start).Microseconds()) / 1000}
	return out, err
}

// failed records a failed apply in the status and returns the error (an
// update error carries its control kind, see update.ErrDisabled).
func (u *Updater) failed(err error) error {
	u.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err) })
	u.host.PublishStatus()
	u.cfg.Logger.Warn("update failed", "err", err)
	return err
}
