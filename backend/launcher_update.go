package backend

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
	"hermes-desktop/backend/healthwindow"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
)

// Self-update, the launcher's side (the mechanism is backend/update). A
// goroutine the launcher owns checks the feed 30 to 60 s after start (or
// after another feed was saved in the settings: launcher_update_settings.go)
// and then every few hours; a newer version for a self-managed install is
// downloaded and verified in the background ("Update ready"). Applying it
// waits for the user's click ("Restart to update", `update apply`) unless
// UpdateAutomatically is on, then the backends must be idle: the new binary
// is staged next to the installed one and must answer `version --json`,
// the installed one is kept as .old and the new one renamed in its place,
// and an adopt handoff to it keeps the backends running. This (old)
// process then watches the new version's health window and rolls back if
// it fails (launcher_update_watch.go, backend/healthwindow). A package-managed copy is never
// replaced: the user is told the command that updates it.

// First automatic check: this long after start, plus up to as much again.
const updateFirstCheck = 30 * time.Second

// updater is the launcher's self-update state.
type updater struct {
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
	// publish announces a status change.
	publish func()

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

	ctx    context.Context // ends with the launcher (stop)
	cancel context.CancelFunc
	bg     sync.WaitGroup // the scheduler and background downloads
}

// newUpdater builds the update state from the configuration.
func (l *Launcher) newUpdater() *updater {
	dir := filepath.Join(l.cfg.StateDir, "updates")
	ctx, cancel := context.WithCancel(context.Background())
	u := &updater{
		base: update.Config{Keys: l.cfg.UpdateKeys, Current: l.cfg.Version, Dir: dir},
		dir:  dir, sem: make(chan struct{}, 1), feedChanged: make(chan struct{}, 1), firstCheck: updateFirstCheck, ctx: ctx, cancel: cancel,
		publish: func() { l.events.Publish(model.Event{Kind: model.EventStatus}) },
	}
	u.automatic.Store(l.cfg.UpdateAutomatically)
	u.info = update.Info{Current: l.cfg.Version, Automatic: l.cfg.UpdateAutomatically, Skipped: update.Skipped(dir),
		FeedFrom: l.cfg.UpdateFeedFrom, AutomaticFrom: l.cfg.UpdateAutomaticallyFrom}
	u.useFeed(l.cfg.UpdateFeed) // not shared yet: no lock needed
	return u
}

// startUpdates reads what an earlier update left (a rollback to report, a
// health window this instance is in, one that was interrupted) and starts
// the scheduler. Called from Start.
func (l *Launcher) startUpdates() {
	u := l.upd
	if r := update.TakeRollback(u.dir); r != nil {
		l.AddNotice(rollbackNotice(r))
	}
	if p := update.ReadProbation(u.dir); p != nil {
		l.noteProbation(p)
	}
	update.PruneOlder(u.dir, l.cfg.Version)
	// Also without a usable feed: one may be saved in the settings later.
	if l.cfg.UpdateCheckInterval < 0 {
		return
	}
	u.bg.Add(1)
	go func() {
		defer u.bg.Done()
		l.runUpdateScheduler(u.ctx)
	}()
}

// noteProbation: a health window is recorded. If this instance is the new
// version being watched, status says so (and updates wait); if its watcher
// is gone, the window was interrupted (a logout, say): nothing can tell
// whether the new version failed, so it stays, and the user is told.
func (l *Launcher) noteProbation(p *update.Probation) {
	if healthwindow.WatcherAlive(p) {
		if p.Version == l.cfg.Version && time.Now().Before(p.Until()) {
			l.upd.mu.Lock()
			l.upd.probationUntil = p.Until()
			l.upd.mu.Unlock()
		}
		return // still being watched: the watcher removes the record
	}
	_ = update.ClearProbation(l.upd.dir)
	if p.Version == l.cfg.Version {
		l.AddNotice(fmt.Sprintf("The health check of Hermes Desktop %s after its update was interrupted; %s stays installed (%s keeps %s).",
			p.Version, p.Version, filepath.Base(update.OldPath(p.Target)), p.Previous))
	}
}

// stopUpdates ends the scheduler and background downloads. From Shutdown.
func (l *Launcher) stopUpdates() {
	l.upd.cancel()
	l.upd.bg.Wait()
}

// runUpdateScheduler checks a little after start, or after another feed
// was put in use (with jitter, so a fleet started together does not ask at
// once), and then every interval. It waits on a timer, or with updates off
// only for a feed change: nothing runs between checks.
func (l *Launcher) runUpdateScheduler(ctx context.Context) {
	u := l.upd
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
			next := l.scheduledCheck(ctx)
			if u.client.Load().Disabled() == nil { // turned off meanwhile: wait for a feed
				t.Reset(next)
			}
		}
	}
}

// scheduledCheck checks, downloads what it finds, applies it when that is
// wanted and the backends are idle, and returns when to check next.
func (l *Launcher) scheduledCheck(ctx context.Context) time.Duration {
	interval := l.cfg.UpdateCheckInterval + rand.N(l.cfg.UpdateCheckInterval/8+1)
	chk, err := l.CheckForUpdate(ctx, false)
	if err != nil || !chk.Available || chk.Reason != "" {
		return interval // nothing to do, or busy, or it failed (status says why)
	}
	if err := l.prepareUpdate(ctx); err != nil || !l.upd.automatic.Load() {
		return interval
	}
	if err := l.updateAllowed(); err != nil {
		l.cfg.Logger.Info("update: applying later", "why", err)
		return time.Minute // busy now: look again soon
	}
	if _, err := l.ApplyUpdate(ctx); err != nil {
		l.cfg.Logger.Warn("update: automatic update failed", "err", err)
	}
	return interval
}

// CheckForUpdate asks the feed now and says what it offers. With
// download, a newer version for a self-managed install starts downloading
// in the background (the window's "Check now"); without, it only looks
// (`update check`). Every answer is in the result, failures included
// (Reason offline, signature, ...: see update.Check.Failed); the error is
// only for ctx. While a download or an apply runs, it answers what is
// known without asking the feed again.
func (l *Launcher) CheckForUpdate(ctx context.Context, download bool) (update.Check, error) {
	u := l.upd
	if !u.tryAcquire() {
		return u.busyCheck(), nil
	}
	rel, err := l.checkRelease(ctx)
	u.releaseSem()
	chk := update.Check{Current: l.cfg.Version}
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
	in, err := update.Inspect(l.cfg.Self)
	if err == nil && !in.SelfManaged() {
		chk.Reason, chk.Message, chk.Command = update.Reason(update.ErrManaged), in.Why(), in.UpdateCommand(rel.Version)
		u.set(func(i *update.Info) { i.Command = chk.Command })
		return chk, nil
	}
	if download {
		u.bg.Add(1)
		go func() { // owned by the launcher: ends with u.ctx (Shutdown)
			defer u.bg.Done()
			_ = l.prepareUpdate(u.ctx)
		}()
	}
	return chk, nil
}

// busyCheck answers a check while a download or an apply runs.
func (u *updater) busyCheck() update.Check {
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
func (l *Launcher) checkRelease(ctx context.Context) (*update.Release, error) {
	u := l.upd
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
	defer l.events.Publish(model.Event{Kind: model.EventStatus})
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
		if rel != nil && update.Newer(rel.Version, l.cfg.Version) {
			i.Error = err.Error() // newer, but not offered: say why
		}
	case err != nil:
		i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err)
	case u.artifact != "" && u.release != nil && u.release.Version == rel.Version:
		i.State = update.StateReady // downloaded already
	default:
		if u.release == nil || u.release.Version != rel.Version {
			u.artifact = ""
		}
		u.release = rel
		i.State, i.Bytes, i.Total, i.Speed = update.StateAvailable, 0, rel.Artifact.Size, 0
	}
	if err != nil {
		return rel, err
	}
	return rel, nil
}

// prepareUpdate downloads and verifies the offered release: "Update ready".
func (l *Launcher) prepareUpdate(ctx context.Context) error {
	u := l.upd
	if err := u.acquire(ctx); err != nil {
		return err
	}
	defer u.releaseSem()
	_, err := l.download(ctx)
	return err
}

// download fetches the offered release (or finds it on disk), publishing
// progress. Call with the semaphore held.
func (l *Launcher) download(ctx context.Context) (string, error) {
	u := l.upd
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
		l.events.Publish(model.Event{Kind: model.EventStatus})
	})
	if err != nil {
		u.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err) })
		l.events.Publish(model.Event{Kind: model.EventStatus})
		return "", controlKind(err)
	}
	u.mu.Lock()
	u.artifact = path
	u.info.State = update.StateReady
	u.mu.Unlock()
	l.events.Publish(model.Event{Kind: model.EventStatus})
	l.cfg.Logger.Info("update: downloaded and verified", "version", rel.Version, "path", path)
	return path, nil
}

// SkipVersion stops offering version ("" offers everything again).
func (l *Launcher) SkipVersion(version string) error {
	if err := update.Skip(l.upd.dir, version); err != nil {
		return fmt.Errorf("%w: %w", control.ErrBadRequest, err)
	}
	l.upd.set(func(i *update.Info) {
		i.Skipped = version
		if version != "" && version == i.Latest && (i.State == update.StateAvailable || i.State == update.StateReady) {
			i.State = update.StateIdle
		}
	})
	l.events.Publish(model.Event{Kind: model.EventStatus})
	return nil
}

// updateAllowed refuses an update while one is being watched, while a
// handoff runs or while a backend is (re)starting: never during a handoff
// or a restart.
func (l *Launcher) updateAllowed() error {
	l.upd.mu.Lock()
	until := l.upd.probationUntil
	l.upd.mu.Unlock()
	if time.Now().Before(until) {
		return fmt.Errorf("%w: this version is in its health window after an update until %s", control.ErrBusy, until.Format(time.TimeOnly))
	}
	if l.successor.Load() != nil {
		return fmt.Errorf("%w: a handoff is under way", control.ErrBusy)
	}
	for _, s := range l.supervisors() {
		if st := s.Status(); st.State == model.StateStarting || st.State == model.StateRestarting {
			return fmt.Errorf("%w: backend %s is %s", control.ErrBusy, st.Name, st.State)
		}
	}
	return nil
}

// UpdateStatus is the self-update's state for status.
func (l *Launcher) UpdateStatus() *update.Info {
	u := l.upd
	u.mu.Lock()
	defer u.mu.Unlock()
	info := u.info
	if until := u.probationUntil; time.Now().Before(until) {
		info.ProbationUntil = &until
	}
	return &info
}

// set changes the status under the lock.
func (u *updater) set(fn func(*update.Info)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fn(&u.info)
}

// acquire takes the semaphore: one check, download or apply at a time.
func (u *updater) acquire(ctx context.Context) error {
	select {
	case u.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tryAcquire takes the semaphore if it is free.
func (u *updater) tryAcquire() bool {
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
func (u *updater) releaseSem() {
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

// kindError gives an update error the control kind it travels as over the
// socket, keeping its own words (and its update sentinel).
type kindError struct{ kind, err error }

func (e kindError) Error() string   { return e.err.Error() }
func (e kindError) Unwrap() []error { return []error{e.kind, e.err} }

// controlKind maps an update error to a control kind.
func controlKind(err error) error {
	var kind error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, update.ErrUpToDate):
		kind = control.ErrUpToDate
	case errors.Is(err, update.ErrDisabled), errors.Is(err, update.ErrManaged):
		kind = control.ErrRefused
	case errors.Is(err, update.ErrDiskFull):
		kind = control.ErrNoSpace
	case errors.Is(err, update.ErrSignature), errors.Is(err, update.ErrChecksum), errors.Is(err, update.ErrSmoke),
		errors.Is(err, update.ErrFeed), errors.Is(err, update.ErrInsecure):
		kind = control.ErrUnverified
	case errors.Is(err, update.ErrOffline):
		kind = control.ErrOffline
	default:
		return err
	}
	return kindError{kind: kind, err: err}
}

// rollbackNotice tells the user about a rollback, once.
func rollbackNotice(r *update.Rollback) string {
	what := "its backends were kept"
	if !r.BackendsKept {
		what = "its backends were lost with it and were restarted"
	}
	return fmt.Sprintf("Hermes Desktop %s was rolled back to %s: %s; %s. %s will not be offered again.", r.From, r.To, r.Reason, what, r.From)
}
