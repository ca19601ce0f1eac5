package selfupdate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/update"
	"hermes-desktop/platform/proc"
)

// The health window after an update (go judges it): this
// (old) process watches the new version it started, and rolls back if it
// fails: .old restored, the version marked bad (update.MarkBad), and the
// backends handed back to the restored binary (same PIDs, same ports) if
// the new instance still runs and agrees; else it is stopped (our child)
// and the restored binary starts fresh: its boot reap removes what is left
// and it starts the backends again. Which of the two happened is logged
// and shown by the restored instance (update.RecordRollback).

// updateWatch is the watch and the new instance it watches.
type updateWatch struct {
	succ Successor
	Watch
}

// WatchUpdate keeps this (old) process alive, after an update handoff, as
// the watcher of the new version's health window, and rolls back if it
// fails. It returns at once after any other handoff, or none. ctx ending
// (a signal) abandons the watch.
func (u *Updater) WatchUpdate(ctx context.Context) {
	w := u.swap.watch.Load()
	if w == nil {
		return
	}
	healthWatcher{cfg: &u.cfg, launcher: u.launcher, dir: u.dir}.watch(ctx, w)
}

// healthWatcher is this (old) process watching the new version's health
// window after an update handoff, and rolling back if it fails.
type healthWatcher struct {
	cfg      *Config
	launcher Launcher
	dir      string // <state>/updates
}

// watch waits for the window's verdict and acts on it.
func (h healthWatcher) watch(ctx context.Context, w *updateWatch) {
	// The new instance's orphans are not ours to reap any more.
	_ = proc.SetChildSubreaper(false)
	verdict, why := w.Wait(ctx)
	switch verdict {
	case Passed:
		_ = update.ClearProbation(h.dir)
		fmt.Fprintf(h.cfg.Announce, "update: %s passed its health window (%v)\n", w.Probation.Version, w.Probation.Window)
	case Stopped:
		_ = update.ClearProbation(h.dir)
		fmt.Fprintf(h.cfg.Announce, "update: %s was stopped inside its health window (%s): not a failure\n", w.Probation.Version, why)
	case Failed:
		h.rollback(ctx, w, why)
	case Abandoned:
		h.cfg.Logger.Warn("update: the health window's watch was interrupted", "version", w.Probation.Version)
	}
}

// rollback restores the old version, marks the new one bad and gets the
// backends back under the old version: handed back if the new instance
// still runs and agrees, else started fresh.
func (h healthWatcher) rollback(ctx context.Context, w *updateWatch, why string) {
	dir, p := h.dir, w.Probation
	fmt.Fprintf(h.cfg.Announce, "update: %s failed its health window: %s; rolling back to %s\n", p.Version, why, p.Previous)
	if err := update.MarkBad(dir, update.BadVersion{Version: p.Version, Reason: why, At: time.Now()}); err != nil {
		h.cfg.Logger.Error("update: rollback: mark the version bad", "err", err)
	}
	if err := update.Restore(p.Target, update.Versions{From: p.Version, To: p.Previous}); err != nil {
		// Nothing safe to start: the record stays for the next start to report.
		h.cfg.Logger.Error("update: rollback: restore the old version", "err", err)
		return
	}
	_ = update.ClearProbation(dir)
	update.PruneDownloads(dir, "")
	rb := update.Rollback{From: p.Version, To: p.Previous, Reason: why, At: time.Now(), BackendsKept: true}
	if h.handBack(ctx, w, rb) {
		fmt.Fprintf(h.cfg.Announce, "update: rolled back to %s; the backends were handed back (same processes)\n", p.Previous)
		return
	}
	rb.BackendsKept = false
	if err := update.RecordRollback(dir, rb); err != nil {
		h.cfg.Logger.Warn("update: rollback: record it", "err", err)
	}
	h.startOld(ctx, w)
}

// handBack asks a failing new instance that still runs to hand the
// backends over to the restored old binary. If it cannot, it is stopped
// (it is our child: its PID is ours until we collect it).
func (h healthWatcher) handBack(ctx context.Context, w *updateWatch, rb update.Rollback) bool {
	select {
	case <-w.succ.Exited():
		return false
	default:
	}
	if err := update.RecordRollback(h.dir, rb); err != nil {
		h.cfg.Logger.Warn("update: rollback: record it", "err", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	err := w.WaitSettled(cctx)
	if err == nil {
		_, err = protocol.OpHandoff.Call(cctx, h.cfg.StateDir, "", protocol.HandoffArgs{To: w.Probation.Exe, Mode: protocol.HandoffAdopt, TimeoutNS: int64(time.Minute)})
	}
	if err == nil {
		select { // it exits once it has answered
		case <-w.succ.Exited():
		case <-time.After(10 * time.Second):
		}
		return true
	}
	h.cfg.Logger.Warn("update: the failed version would not hand the backends back; stopping it", "err", err)
	w.succ.Stop()
	return false
}

// startOld starts the restored old binary as a fresh instance (the
// failed one is gone), as a restart-mode successor, and says which
// backends it starts again.
func (h healthWatcher) startOld(ctx context.Context, w *updateWatch) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	succ, err := h.launcher.StartFresh(cctx, w.Probation.Exe)
	if err != nil {
		h.cfg.Logger.Error("update: rollback: start the old version", "err", err)
		return
	}
	fmt.Fprintf(h.cfg.Announce, "update: rolled back to %s (pid %d); the backends were lost with the failed version and are restarted: %s\n",
		w.Probation.Previous, succ.PID(), strings.Join(h.cfg.Backends, ", "))
}
