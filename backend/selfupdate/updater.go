// Package selfupdate is the running app's self-update: an Updater that
// holds its own state and sees the launcher only through Launcher (hand off,
// busy?, publish status, add a notice, crash counts, start afresh). The
// mechanism (feed, download, verify, stage, swap) is backend/update.
//
// A goroutine the Updater owns checks the feed 30 to 60 s after start (or
// after another feed was saved in the settings: settings.go)
// and then every few hours; a newer version for a self-managed install is
// downloaded and verified in the background ("Update ready"). Applying it
// waits for the user's click ("Restart to update", `update apply`) unless
// UpdateAutomatically is on, then the backends must be idle: the new binary
// is staged next to the installed one and must answer `version --json`,
// the installed one is kept as .old and the new one renamed in its place,
// and an adopt handoff to it keeps the backends running. This (old)
// process then watches the new version's health window and rolls back if
// it fails (rollback.go, healthwindow.go). A package-managed copy is never
// replaced: the user is told the command that updates it. A package
// upgrade that replaced our executable is offered as "Restart to apply"
// (exewatch.go: ApplyInstalled).
//
// The Updater is split by job: the feed in use and the one-at-a-time lane
// through it (feed.go), the offer and its download (download.go), the
// stage, swap and handoff (apply.go), the health window and the rollback
// (healthwindow.go, rollback.go); it holds them and the schedule. It never
// imports package backend: the launcher holds the Updater, not the other
// way round.
package selfupdate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/update"
	"hermes-desktop/contract/errkind"
)

// First automatic check: this long after start, plus up to as much again.
const updateFirstCheck = 30 * time.Second

// Updater is the running app's self-update: its schedule, and the parts
// that do each job (feed, offer and download, swap, health window), the
// watch on our own executable.
type Updater struct {
	cfg      Config
	launcher Launcher
	exe      *exeWatch // the watch on our own executable; nil when none runs (set in New)
	dir      string    // <state>/updates

	status *statusBoard
	feed   *feedLine
	offer  *offer
	swap   *swapper
	// automatic: apply a downloaded update when the backends are idle.
	automatic atomic.Bool
	// firstCheck is updateFirstCheck (tests shorten it).
	firstCheck time.Duration

	ctx    context.Context // ends with Stop
	cancel context.CancelFunc
	bg     sync.WaitGroup // the scheduler, background downloads and the exe watch
}

// New builds the Updater from the configuration. Nothing runs until
// Start.
func New(cfg Config, launcher Launcher) *Updater {
	dir := filepath.Join(cfg.StateDir, "updates")
	ctx, cancel := context.WithCancel(context.Background())
	u := &Updater{cfg: cfg, launcher: launcher, exe: newExeWatch(cfg.Exe), dir: dir, firstCheck: updateFirstCheck, ctx: ctx, cancel: cancel}
	u.status = &statusBoard{publish: launcher.PublishStatus, log: cfg.Logger, info: update.Info{
		Current: cfg.Version, Automatic: cfg.Automatic, Skipped: update.Skipped(dir),
		FeedFrom: cfg.FeedFrom, AutomaticFrom: cfg.AutomaticFrom}}
	u.offer = &offer{status: u.status, cfg: &u.cfg, dir: dir}
	u.swap = &swapper{cfg: &u.cfg, launcher: launcher, status: u.status, dir: dir}
	u.automatic.Store(cfg.Automatic)
	u.feed = newFeedLine(update.Config{Keys: cfg.Keys, Current: cfg.Version, Dir: dir,
		Installed: cfg.Exe, Logger: cfg.Logger}, cfg.Feed, u.feedInUse)
	u.feed.announce = launcher.PublishStatus
	u.offer.feed = u.feed
	return u
}

// Start finishes a swap of the install that a crash cut short, watches
// our executable, reads what an earlier update left (a rollback to report,
// a health window this instance is in, one that was interrupted) and
// starts the scheduler. The goroutines it starts are the
// Updater's, ended by Stop.
func (u *Updater) Start() {
	u.recoverInstall()
	u.watchExecutable()
	if r := update.TakeRollback(u.dir); r != nil {
		u.launcher.AddNotice(rollbackNotice(r))
	}
	if p := update.ReadProbation(u.dir); p != nil {
		u.noteProbation(p)
	}
	update.PruneOlder(u.dir, u.cfg.Version)
	// Also without a usable feed: one may be saved in the settings later.
	if u.cfg.CheckInterval < 0 {
		return
	}
	u.bg.Add(1)
	go func() {
		defer u.bg.Done()
		u.runScheduler(u.ctx)
	}()
}

// recoverInstall finishes, before anything uses the install, a swap or a
// restore of its unit that a crash cut short (the update's journal in the
// install directory), whatever the update settings: the install is the
// old version or the new one, whole, and this start says which.
func (u *Updater) recoverInstall() {
	if u.cfg.Exe == "" {
		return
	}
	in, err := update.Inspect(u.cfg.Exe)
	if err == nil {
		err = u.swap.recover(in.Target)
	}
	if err != nil {
		u.cfg.Logger.Error("update: recover the install after an interrupted update", "err", err)
		u.launcher.AddNotice(fmt.Sprintf("Hermes Desktop could not finish an interrupted update of its install: %v", err))
	}
}

// noteProbation: a health window is recorded. If this instance is the new
// version being watched, status says so (and updates wait); if its watcher
// is gone, the window was interrupted (a logout, say): nothing can tell
// whether the new version failed, so it stays, and the user is told.
func (u *Updater) noteProbation(p *update.Probation) {
	if WatcherAlive(p) {
		if p.Version == u.cfg.Version && time.Now().Before(p.Until()) {
			u.status.setProbation(p.Until())
		}
		return // still being watched: the watcher removes the record
	}
	_ = update.ClearProbation(u.dir)
	if p.Version == u.cfg.Version {
		u.launcher.AddNotice(fmt.Sprintf("The health check of Hermes Desktop %s after its update was interrupted; %s stays installed (%s keeps %s).",
			p.Version, p.Version, filepath.Base(update.OldPath(p.Target)), p.Previous))
	}
}

// Stop ends the exe watch, the scheduler and background downloads, and
// waits for them. The launcher calls it from Shutdown.
func (u *Updater) Stop() {
	u.cancel()
	u.bg.Wait()
}

// runScheduler checks a little after start, or after another feed
// was put in use (with jitter, so a fleet started together does not ask at
// once), and then every interval. It waits on a timer, or with updates off
// only for a feed change: nothing runs between checks.
func (u *Updater) runScheduler(ctx context.Context) {
	t := time.NewTimer(u.firstCheck)
	defer t.Stop()
	firstCheck := func() {
		t.Stop()
		if u.feed.load().Disabled() == nil {
			t.Reset(u.firstCheck + rand.N(u.firstCheck))
		}
	}
	firstCheck()
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.feed.changed:
			firstCheck()
		case <-t.C:
			next := u.scheduledCheck(ctx)
			if u.feed.load().Disabled() == nil { // turned off meanwhile: wait for a feed
				t.Reset(next)
			}
		}
	}
}

// scheduledCheck checks, downloads what it finds, applies it when that is
// wanted and the backends are idle, and returns when to check next.
func (u *Updater) scheduledCheck(ctx context.Context) time.Duration {
	interval := u.cfg.CheckInterval + rand.N(u.cfg.CheckInterval/8+1)
	chk, err := u.Check(ctx, false)
	if err != nil || !chk.Available || chk.Reason != "" {
		return interval // nothing to do, or busy, or it failed (status says why)
	}
	if err := u.offer.prepare(ctx); err != nil || !u.automatic.Load() {
		return interval
	}
	if err := u.allowed(); err != nil {
		u.cfg.Logger.Info("update: applying later", "why", err)
		return time.Minute // busy now: look again soon
	}
	if _, err := u.Apply(ctx); err != nil {
		u.cfg.Logger.Warn("update: automatic update failed", "err", err)
	}
	return interval
}

// Check asks the feed now and says what it offers. With
// download, a newer version for a self-managed install starts downloading
// in the background (the window's "Check now"); without, it only looks
// (`update check`). Every answer is in the result, failures included
// (Reason offline, signature, ...: see update.Check.Failed); the error is
// only for ctx. While a download or an apply runs, it answers what is
// known without asking the feed again.
func (u *Updater) Check(ctx context.Context, download bool) (update.Check, error) {
	if !u.feed.tryAcquire() {
		return u.status.busyCheck(), nil
	}
	rel, err := u.offer.check(ctx)
	u.feed.release()
	chk := update.Check{Current: u.cfg.Version}
	if rel != nil {
		chk.Latest, chk.Notes = rel.Version, rel.Notes
	}
	if err != nil {
		chk.Reason, chk.Message = update.Reason(err), err.Error()
		return chk, ctx.Err()
	}
	chk.Available = true
	if skipped := update.Skipped(u.dir); skipped == rel.Version {
		chk.Available, chk.Reason, chk.Message = false, "skipped", fmt.Sprintf("%s is skipped (Skip this version)", skipped)
		return chk, nil
	}
	in, err := update.Inspect(u.cfg.Exe)
	if err == nil && !in.SelfManaged() {
		chk.Reason, chk.Message, chk.Command = update.Reason(update.ErrManaged), in.Why(), in.UpdateCommand(rel.Version)
		u.status.set(func(i *update.Info) { i.Command = chk.Command })
		return chk, nil
	}
	chk.Download = downloadOf(rel)
	if download {
		u.bg.Add(1)
		go func() { // owned by the Updater: ends with u.ctx (Stop)
			defer u.bg.Done()
			_ = u.offer.prepare(u.ctx)
		}()
	}
	return chk, nil
}

// Skip stops offering version ("" offers everything again).
func (u *Updater) Skip(version string) error {
	if err := update.Skip(u.dir, version); err != nil {
		return fmt.Errorf("%w: %w", errkind.ErrBadRequest, err)
	}
	u.status.change(func(i *update.Info) {
		i.Skipped = version
		if version != "" && version == i.Latest && (i.State == update.StateAvailable || i.State == update.StateReady) {
			i.State = update.StateIdle
		}
	})
	return nil
}

// allowed refuses an update while one is being watched, while a handoff
// runs or while a backend is (re)starting (Launcher.Busy): never during a
// handoff or a restart.
func (u *Updater) allowed() error {
	if until := u.status.probation(); time.Now().Before(until) {
		return fmt.Errorf("%w: this version is in its health window after an update until %s", errkind.ErrBusy, until.Format(time.TimeOnly))
	}
	return u.launcher.Busy()
}

// Status is the self-update's state for status (instance.update).
func (u *Updater) Status() *update.Info { return u.status.snapshot() }

// rollbackNotice tells the user about a rollback, once.
func rollbackNotice(r *update.Rollback) string {
	what := "its backends were kept"
	if !r.BackendsKept {
		what = "its backends were lost with it and were restarted"
	}
	return fmt.Sprintf("Hermes Desktop %s was rolled back to %s: %s; %s. %s will not be offered again.", r.From, r.To, r.Reason, what, r.From)
}
