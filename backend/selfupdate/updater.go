// Package selfupdate is the running app's self-update: an Updater that
// holds its own state and sees the launcher only through Host (hand off,
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
// (exewatch.go).
//
// It imports the layers below the launcher (update, settings, model,
// handoff, control, instance, platform/proc) and never package
// backend: the launcher holds the Updater, not the other way round.
package selfupdate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/update"
)

// First automatic check: this long after start, plus up to as much again.
const updateFirstCheck = 30 * time.Second

// Updater is the running app's self-update: its schedule, the offered
// release and its download, the apply, the health window it watches after
// a handoff, and the watch on our own executable.
type Updater struct {
	cfg  Config
	host Host
	exe  *exeWatch // the watch on our own executable; nil when none runs (set in New)

	// client asks the feed in use. It is replaced (useFeed) only with sem
	// held, so a check, download or apply talks to one feed throughout.
	client atomic.Pointer[update.Client]
	base   update.Config // the client's configuration but the feed
	dir    string        // <state>/updates
	sem    chan struct{} // held through a check, download or apply: one at a time
	// automatic: apply a downloaded update when the backends are idle.
	automatic atomic.Bool
	// feedChanged tells the scheduler that another feed is in use.
	feedChanged chan struct{}
	// firstCheck is updateFirstCheck (tests shorten it).
	firstCheck time.Duration

	mu       sync.Mutex // guards info, feed, nextFeed, release, artifact and probationUntil
	info     update.Info
	feed     string          // the feed in use, as configured
	nextFeed *string         // a feed saved while sem was held; put in use when it is released
	release  *update.Release // the latest verified offer
	artifact string          // release's verified download; "" until then
	// probationUntil is set in Start when this instance is a new version
	// in its health window.
	probationUntil time.Time
	// watch is set once an update handoff committed: this process then
	// watches the new version's health window (WatchUpdate).
	watch atomic.Pointer[updateWatch]
	// swapping is set while our own swap changes the executable on disk,
	// so the watch on it does not announce a package upgrade.
	swapping atomic.Bool

	ctx    context.Context // ends with Stop
	cancel context.CancelFunc
	bg     sync.WaitGroup // the scheduler, background downloads and the exe watch
}

// New builds the Updater from the configuration. Nothing runs until
// Start.
func New(cfg Config, host Host) *Updater {
	dir := filepath.Join(cfg.StateDir, "updates")
	ctx, cancel := context.WithCancel(context.Background())
	u := &Updater{
		cfg: cfg, host: host, exe: newExeWatch(cfg.Exe),
		base: update.Config{Keys: cfg.Keys, Current: cfg.Version, Dir: dir},
		dir:  dir, sem: make(chan struct{}, 1), feedChanged: make(chan struct{}, 1), firstCheck: updateFirstCheck, ctx: ctx, cancel: cancel,
	}
	u.automatic.Store(cfg.Automatic)
	u.info = update.Info{Current: cfg.Version, Automatic: cfg.Automatic, Skipped: update.Skipped(dir),
		FeedFrom: cfg.FeedFrom, AutomaticFrom: cfg.AutomaticFrom}
	u.useFeed(cfg.Feed) // not shared yet: no lock needed
	return u
}

// Start watches our executable, reads what an earlier update left (a
// rollback to report, a health window this instance is in, one that was
// interrupted) and starts the scheduler. The goroutines it starts are the
// Updater's, ended by Stop.
func (u *Updater) Start() {
	u.watchExecutable()
	if r := update.TakeRollback(u.dir); r != nil {
		u.host.AddNotice(rollbackNotice(r))
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

// noteProbation: a health window is recorded. If this instance is the new
// version being watched, status says so (and updates wait); if its watcher
// is gone, the window was interrupted (a logout, say): nothing can tell
// whether the new version failed, so it stays, and the user is told.
func (u *Updater) noteProbation(p *update.Probation) {
	if WatcherAlive(p) {
		if p.Version == u.cfg.Version && time.Now().Before(p.Until()) {
			u.mu.Lock()
			u.probationUntil = p.Until()
			u.mu.Unlock()
		}
		return // still being watched: the watcher removes the record
	}
	_ = update.ClearProbation(u.dir)
	if p.Version == u.cfg.Version {
		u.host.AddNotice(fmt.Sprintf("The health check of Hermes Desktop %s after its update was interrupted; %s stays installed (%s keeps %s).",
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
		if u.client.Load().Disabled() == nil {
			t.Reset(u.firstCheck + rand.N(u.firstCheck))
		}
	}
	firstCheck()
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.feedChanged:
			firstCheck()
		case <-t.C:
			next := u.scheduledCheck(ctx)
			if u.client.Load().Disabled() == nil { // turned off meanwhile: wait for a feed
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
	if err := u.prepare(ctx); err != nil || !u.automatic.Load() {
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
	if !u.tryAcquire() {
		return u.busyCheck(), nil
	}
	rel, err := u.checkRelease(ctx)
	u.releaseSem()
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
		u.set(func(i *update.Info) { i.Command = chk.Command })
		return chk, nil
	}
	if download {
		u.bg.Add(1)
		go func() { // owned by the Updater: ends with u.ctx (Stop)
			defer u.bg.Done()
			_ = u.prepare(u.ctx)
		}()
	}
	return chk, nil
}

// busyCheck answers a check while a download or an apply runs.
func (u *Updater) busyCheck() update.Check {
	u.mu.Lock()
	defer u.mu.Unlock()
	i := u.info
	return update.Check{Current: i.Current, Latest: i.Latest, Notes: i.Notes, Command: i.Command,
		Available: i.State == update.StateDownloading || i.State == update.StateReady || i.State == update.StateApplying,
		Reason:    "busy", Message: fmt.Sprintf("an update is %s", i.State)}
}

// checkRelease asks the feed and records the answer in the status. A
// version marked bad is answered as "up to date" (it is never offered
// again; a newer one is). Call with the semaphore held.
func (u *Updater) checkRelease(ctx context.Context) (*update.Release, error) {
	u.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateChecking, "", "" })
	rel, err := u.client.Load().Check(ctx)
	if err == nil {
		if bad, ok := update.IsBad(u.dir, rel.Version); ok {
			err = fmt.Errorf("%w: %s failed after an earlier update (%s) and is not offered again", update.ErrUpToDate, bad.Version, bad.Reason)
		}
	}
	now := time.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	defer u.host.PublishStatus()
	i := &u.info
	i.CheckedAt, i.Skipped = &now, update.Skipped(u.dir)
	if rel != nil {
		i.Latest, i.Notes = rel.Version, rel.Notes
	}
	switch {
	case errors.Is(err, update.ErrDisabled):
		i.State, i.Error, i.Reason, i.BuildOff = update.StateOff, err.Error(), update.Reason(err), errors.Is(err, update.ErrBuildOff)
	case errors.Is(err, update.ErrUpToDate):
		i.State, i.Error, i.Reason = update.StateIdle, "", update.Reason(err)
		if rel != nil && update.Newer(rel.Version, u.cfg.Version) {
			i.Error = err.Error() // newer, but not offered: say why
		}
	case err != nil:
		i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err)
	case u.artifact != "" && sameArtifact(u.release, rel):
		i.State = update.StateReady // downloaded already
	default:
		if !sameArtifact(u.release, rel) {
			u.artifact = "" // verified against another manifest's digest
		}
		u.release = rel
		i.State, i.Bytes, i.Total, i.Speed = update.StateAvailable, 0, rel.Artifact.Size, 0
	}
	if err != nil {
		return rel, err
	}
	return rel, nil
}

// sameArtifact reports whether two offers name the same file: the same
// version with the same digest (a feed may re-sign a version with another
// artifact, another flavour's key filled in, say).
func sameArtifact(a, b *update.Release) bool {
	return a != nil && b != nil && a.Version == b.Version && a.Artifact.SHA256 == b.Artifact.SHA256
}

// prepare downloads and verifies the offered release: "Update ready".
func (u *Updater) prepare(ctx context.Context) error {
	if err := u.acquire(ctx); err != nil {
		return err
	}
	defer u.releaseSem()
	_, err := u.download(ctx)
	return err
}

// download fetches the offered release (or finds it on disk), publishing
// progress. Call with the semaphore held.
func (u *Updater) download(ctx context.Context) (string, error) {
	u.mu.Lock()
	rel, artifact := u.release, u.artifact
	u.mu.Unlock()
	if rel == nil {
		return "", fmt.Errorf("update: %w: nothing to download: check first", update.ErrUpToDate)
	}
	if artifact != "" {
		return artifact, nil
	}
	u.set(func(i *update.Info) {
		i.State, i.Error, i.Reason, i.Total = update.StateDownloading, "", "", rel.Artifact.Size
	})
	update.PruneDownloads(u.dir, rel.Version)
	path, err := u.client.Load().Download(ctx, rel, func(p update.Progress) {
		u.set(func(i *update.Info) { i.Bytes, i.Total, i.Speed = p.Bytes, p.Total, p.Speed })
		u.host.PublishStatus()
	})
	if err != nil {
		u.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err) })
		u.host.PublishStatus()
		return "", err
	}
	u.mu.Lock()
	u.artifact = path
	u.info.State = update.StateReady
	u.mu.Unlock()
	u.host.PublishStatus()
	u.cfg.Logger.Info("update: downloaded and verified", "version", rel.Version, "path", path)
	return path, nil
}

// Skip stops offering version ("" offers everything again).
func (u *Updater) Skip(version string) error {
	if err := update.Skip(u.dir, version); err != nil {
		return fmt.Errorf("%w: %w", control.ErrBadRequest, err)
	}
	u.set(func(i *update.Info) {
		i.Skipped = version
		if version != "" && version == i.Latest && (i.State == update.StateAvailable || i.State == update.StateReady) {
			i.State = update.StateIdle
		}
	})
	u.host.PublishStatus()
	return nil
}

// allowed refuses an update while one is being watched, while a handoff
// runs or while a backend is (re)starting (Host.Busy): never during a
// handoff or a restart.
func (u *Updater) allowed() error {
	u.mu.Lock()
	until := u.probationUntil
	u.mu.Unlock()
	if time.Now().Before(until) {
		return fmt.Errorf("%w: this version is in its health window after an update until %s", control.ErrBusy, until.Format(time.TimeOnly))
	}
	return u.host.Busy()
}

// Status is the self-update's state for status (instance.update).
func (u *Updater) Status() *update.Info {
	u.mu.Lock()
	defer u.mu.Unlock()
	info := u.info
	if until := u.probationUntil; time.Now().Before(until) {
		info.ProbationUntil = &until
	}
	return &info
}

// set changes the status under the lock.
func (u *Updater) set(fn func(*update.Info)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fn(&u.info)
}

// acquire takes the semaphore: one check, download or apply at a time.
func (u *Updater) acquire(ctx context.Context) error {
	select {
	case u.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tryAcquire takes the semaphore if it is free.
func (u *Updater) tryAcquire() bool {
	select {
	case u.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

// releaseSem frees the semaphore. A feed saved while it was held is put in
// use first (switchFeed), so a check, download or apply never mixes the
// answers of two feeds.
func (u *Updater) releaseSem() {
	for {
		<-u.sem
		u.mu.Lock()
		pending := u.nextFeed != nil
		u.mu.Unlock()
		// Taken by someone else meanwhile: their release switches.
		if !pending || !u.tryAcquire() {
			return
		}
		u.switchFeed()
	}
}

// rollbackNotice tells the user about a rollback, once.
func rollbackNotice(r *update.Rollback) string {
	what := "its backends were kept"
	if !r.BackendsKept {
		what = "its backends were lost with it and were restarted"
	}
	return fmt.Sprintf("Hermes Desktop %s was rolled back to %s: %s; %s. %s will not be offered again.", r.From, r.To, r.Reason, what, r.From)
}
