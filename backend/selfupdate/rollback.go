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
	w := u.watch.Load()
	if w == nil {
		return
	}
	// The new instance's orphans are not ours to reap any more.
	_ = proc.SetChildSubreaper(false)
	verdict, why := w.Wait(ctx)
	switch verdict {
	case Passed:
		_ = update.ClearProbation(u.dir)
		fmt.Fprintf(u.cfg.Announce, "update: %s passed its health window (%v)\n", w.Probation.Version, w.Probation.Window)
	case Stopped:
		_ = update.ClearProbation(u.dir)
		fmt.Fprintf(u.cfg.Announce, "update: %s was stopped inside its health window (%s): not a failure\n", w.Probation.Version, why)
	case Failed:
		u.rollback(ctx, w, why)
	case Abandoned:
		u.cfg.Logger.Warn("update: the health window's watch was interrupted", "version", w.Probation.Version)
	}
}

// rollback restores the old version, marks the new one bad and gets the
// backends back under the old version: handed back if the new instance
// still runs and agrees, else started fresh.
func (u *Updater) rollback(ctx context.Context, w *updateWatch, why string) {
	dir, p := u.dir, w.Probation
	fmt.Fprintf(u.cfg.Announce, "update: %s failed its health window: %s; rolling back to %s\n", p.Version, why, p.Previous)
	if err := update.MarkBad(dir, update.BadVersion{Version: p.Version, Reason: why, At: time.Now()}); err != nil {
		u.cfg.Logger.Error("update: rollback: mark the version bad", "err", err)
	}
	if err := update.Restore(p.Target); err != nil {
		// Nothing safe to start: the record stays for the next start to report.
		u.cfg.Logger.Error("update: rollback: restore the old version", "err", err)
		return
	}
	_ = update.ClearProbation(dir)
	update.PruneDownloads(dir, "")
	rb := update.Rollback{From: p.Version, To: p.Previous, Reason: why, At: time.Now(), BackendsKept: true}
	if u.handBack(ctx, w, rb) {
		fmt.Fprintf(u.cfg.Announce, "update: rolled back to %s; the backends were handed back (same processes)\n", p.Previous)
		return
	}
	rb.BackendsKept = false
	if err := update.RecordRollback(dir, rb); err != nil {
		u.cfg.Logger.Warn("update: rollback: record it", "err", err)
	}
	u.restartOld(ctx, w)
}

// handBack asks a failing new instance that still runs to hand the
// backends over to the restored old binary. If it cannot, it is stopped
// (it is our child: its PID is ours until we reap it).
func (u *Updater) handBack(ctx context.Context, w *updateWatch, rb update.Rollback) bool {
	select {
	case <-w.succ.Exited():
		return false
	default:
	}
	if err := update.RecordRollback(u.dir, rb); err != nil {
		u.cfg.Logger.Warn("update: rollback: record it", "err", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	err := w.WaitSettled(cctx)
	if err == nil {
		_, err = protocol.OpHandoff.Call(cctx, u.cfg.StateDir, "", protocol.HandoffArgs{To: w.Probation.Exe, Mode: handoffMode(), TimeoutNS: int64(time.Minute)})
	}
	if err == nil {
		select { // it exits once it has answered
		case <-w.succ.Exited():
		case <-time.After(10 * time.Second):
		}
		return true
	}
	u.cfg.Logger.Warn("update: the failed version would not hand the backends back; stopping it", "err", err)
	w.succ.Stop()
	return false
}

// restartOld starts the restored old binary as a fresh instance (the
// failed one is gone), as a restart-mode successor, and says which
// backends it starts again.
func (u *Updater) restartOld(ctx context.Context, w *updateWatch) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	succ, err := u.host.StartFresh(cctx, w.Probation.Exe)
	if err != nil {
		u.cfg.Logger.Error("update: rollback: start the old version", "err", err)
		return
	}
	fmt.Fprintf(u.cfg.Announce, "update: rolled back to %s (pid %d); the backends were lost with the failed version and are restarted: %s\n",
		w.Probation.Previous, succ.PID(), strings.Join(u.cfg.Backends, ", "))
}
