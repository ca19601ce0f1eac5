package selfupdate

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/update"
)

// handoffTimeout bounds the handoff to a new version.
const handoffTimeout = 2 * time.Minute

// Apply installs the offered newer version and hands over to it, for
// callers with no answer to write first (the window, the scheduler). Once
// the new version serves, the launcher is handed over (Launcher.HandedOver);
// main then runs WatchUpdate before it exits.
func (u *Updater) Apply(ctx context.Context) (*update.Result, error) {
	res, err := u.apply(ctx)
	if res != nil { // the new version owns the backends, error or not
		u.launcher.HandedOver()
	}
	return res, err
}

// apply checks, downloads (or finds the download), verifies, stages, swaps
// and hands over. Before the handoff commits, any failure leaves this
// instance in charge with the old version in place (no result); a result
// means the new version owns the backends, even with an error met after
// its commit.
func (u *Updater) apply(ctx context.Context) (*update.Result, error) {
	if err := u.feed.load().Disabled(); err != nil {
		return nil, err
	}
	if err := u.feed.acquire(ctx); err != nil {
		return nil, err
	}
	defer u.feed.release()
	if err := u.allowed(); err != nil {
		return nil, err
	}
	rel, err := u.offer.check(ctx)
	if err != nil {
		return nil, err
	}
	in, err := update.Inspect(u.cfg.Exe)
	if err != nil {
		return nil, err
	}
	if !in.SelfManaged() {
		cmd := in.UpdateCommand(rel.Version)
		u.status.set(func(i *update.Info) { i.Command = cmd })
		return nil, fmt.Errorf("%w: %s %s is available, but %s; update it with: %s", update.ErrManaged, "Hermes Desktop", rel.Version, in.Why(), cmd)
	}
	artifact, err := u.offer.download(ctx)
	if err != nil {
		return nil, err
	}
	return u.swap.install(ctx, rel, in, artifact)
}

// swapper stages, smoke-tests and swaps in a new version and hands over
// to it; after the handoff commits it holds the watch of the new
// version's health window.
type swapper struct {
	cfg      *Config
	launcher Launcher
	status   *statusBoard
	dir      string // <state>/updates
	// swapping is set while our own swap changes the executable on disk,
	// so the watch on it does not announce a package upgrade.
	swapping atomic.Bool
	// watch is set once an update handoff committed: this process then
	// watches the new version's health window (WatchUpdate).
	watch atomic.Pointer[updateWatch]
}

// install stages and smoke-tests the download, records the health window,
// swaps the new version in and hands over to it; it puts the old version
// back if the handoff fails before the commit.
func (s *swapper) install(ctx context.Context, rel *update.Release, in update.Install, artifact string) (*update.Result, error) {
	start := time.Now()
	s.status.change(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateApplying, "", "" })
	if err := s.recover(in.Target); err != nil {
		return nil, s.status.fail(err)
	}
	staged, err := update.Stage(ctx, artifact, in, rel)
	if err != nil {
		return nil, s.status.fail(err)
	}
	p := update.Probation{Version: rel.Version, Previous: s.cfg.Version, Target: in.Target, Exe: in.Exe,
		Watcher: s.cfg.Self, Started: time.Now(), Window: s.cfg.HealthWindow}
	if err := update.WriteProbation(s.dir, p); err != nil {
		os.RemoveAll(staged) // our own staged copy
		return nil, s.status.fail(err)
	}
	baseline := s.launcher.CrashCounts()
	s.swapping.Store(true)
	defer s.swapping.Store(false)
	if err := update.Swap(staged, in.Target, update.Versions{From: s.cfg.Version, To: rel.Version}); err != nil {
		_ = update.ClearProbation(s.dir)
		return nil, s.status.fail(err)
	}
	s.cfg.Logger.Info("update: swapped in; handing over", "version", rel.Version, "path", in.Target.Path)
	// Adopt, on every OS: the backends keep running (on Windows the
	// successor is handed the launcher's job and each tree's with the
	// lifelines, backend/handoff), so the old launcher's exit ends none.
	succ, err := s.launcher.HandOff(ctx, protocol.HandoffArgs{To: in.Exe, Mode: protocol.HandoffAdopt, TimeoutNS: int64(handoffTimeout)})
	if succ == nil {
		if rerr := update.Restore(in.Target, update.Versions{From: rel.Version, To: s.cfg.Version}); rerr != nil {
			err = fmt.Errorf("%w; and putting the old version back failed: %v", err, rerr)
		} else {
			err = fmt.Errorf("%w; the old version is back in place", err)
		}
		_ = update.ClearProbation(s.dir)
		return nil, s.status.fail(err)
	}
	s.watch.Store(&updateWatch{succ: succ, Watch: Watch{
		PID: succ.PID(), Exited: succ.Exited(), ExitState: succ.ExitState,
		Probation: p, Baseline: baseline, StateDir: s.cfg.StateDir,
	}})
	fmt.Fprintf(s.cfg.Announce, "update: %s -> %s: pid %d serves; watching it for %v\n", s.cfg.Version, rel.Version, succ.PID(), p.Window)
	out := &update.Result{From: s.cfg.Version, To: rel.Version, NewPID: succ.PID(), ElapsedMS: float64(time.Since(start).Microseconds()) / 1000}
	return out, err
}

// recover finishes a swap or a restore of the install that a crash cut
// short, before this one starts (update.Recover), and says what it did:
// in the log and as a notice. A replacement another live process is doing
// is an error: this update waits for it.
func (s *swapper) recover(t update.Target) error {
	r, err := update.Recover(t)
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if r != nil {
		s.cfg.Logger.Warn("update: "+r.String(), "installed", r.Installed(), "path", t.Path)
		s.launcher.AddNotice("Hermes Desktop: " + r.String() + ".")
	}
	return nil
}
