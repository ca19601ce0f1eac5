package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/handoffwire"
	"hermes-desktop/backend/healthwindow"
	"hermes-desktop/backend/update"
	"hermes-desktop/internal/proc"
)

// The health window after an update (backend/healthwindow judges it): this
// (old) process watches the new version it started, and rolls back if it
// fails: .old restored, the version marked bad (update.MarkBad), and the
// backends handed back to the restored binary (same PIDs, same ports) if
// the new instance still runs and agrees; else it is stopped (our child)
// and the restored binary starts fresh: its boot reap removes what is left
// and it starts the backends again. Which of the two happened is logged
// and shown by the restored instance (update.RecordRollback).

// updateWatch is the watch and the new instance it watches.
type updateWatch struct {
	succ *successor
	healthwindow.Watch
}

// WatchUpdate, after an update handoff, keeps this (old) process alive as
// the watcher of the new version's health window, and rolls back if it
// fails. It returns at once after any other handoff, or none. ctx ending
// (a signal) abandons the watch.
func (l *Launcher) WatchUpdate(ctx context.Context) {
	w := l.upd.watch.Load()
	if w == nil {
		return
	}
	// The new instance's orphans are not ours to reap any more.
	_ = proc.SetChildSubreaper(false)
	verdict, why := w.Wait(ctx)
	switch verdict {
	case healthwindow.Passed:
		_ = update.ClearProbation(l.upd.dir)
		fmt.Fprintf(l.cfg.Announce, "update: %s passed its health window (%v)\n", w.Probation.Version, w.Probation.Window)
	case healthwindow.Stopped:
		_ = update.ClearProbation(l.upd.dir)
		fmt.Fprintf(l.cfg.Announce, "update: %s was stopped inside its health window (%s): not a failure\n", w.Probation.Version, why)
	case healthwindow.Failed:
		l.rollback(ctx, w, why)
	case healthwindow.Abandoned:
		l.cfg.Logger.Warn("update: the health window's watch was interrupted", "version", w.Probation.Version)
	}
}

// rollback restores the old version, marks the new one bad and gets the
// backends back under the old version: handed back if the new instance
// still runs and agrees, else started fresh.
func (l *Launcher) rollback(ctx context.Context, w *updateWatch, why string) {
	dir, p := l.upd.dir, w.Probation
	fmt.Fprintf(l.cfg.Announce, "update: %s failed its health window: %s; rolling back to %s\n", p.Version, why, p.Previous)
	if err := update.MarkBad(dir, update.BadVersion{Version: p.Version, Reason: why, At: time.Now()}); err != nil {
		l.cfg.Logger.Error("update: rollback: mark the version bad", "err", err)
	}
	if err := update.Restore(p.Target); err != nil {
		// Nothing safe to start: the record stays for the next start to report.
		l.cfg.Logger.Error("update: rollback: restore the old version", "err", err)
		return
	}
	_ = update.ClearProbation(dir)
	update.PruneDownloads(dir, "")
	rb := update.Rollback{From: p.Version, To: p.Previous, Reason: why, At: time.Now(), BackendsKept: true}
	if l.handBack(ctx, w, rb) {
		fmt.Fprintf(l.cfg.Announce, "update: rolled back to %s; the backends were handed back (same processes)\n", p.Previous)
		return
	}
	rb.BackendsKept = false
	if err := update.RecordRollback(dir, rb); err != nil {
		l.cfg.Logger.Warn("update: rollback: record it", "err", err)
	}
	l.restartOld(ctx, w)
}

// handBack asks a failing new instance that still runs to hand the
// backends over to the restored old binary. If it cannot, it is stopped
// (it is our child: its PID is ours until we reap it).
func (l *Launcher) handBack(ctx context.Context, w *updateWatch, rb update.Rollback) bool {
	select {
	case <-w.succ.exited:
		return false
	default:
	}
	if err := update.RecordRollback(l.upd.dir, rb); err != nil {
		l.cfg.Logger.Warn("update: rollback: record it", "err", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	err := w.WaitSettled(cctx)
	if err == nil {
		args, _ := json.Marshal(handoffwire.Args{To: w.Probation.Exe, Mode: updateHandoffMode(), TimeoutNS: int64(time.Minute)})
		_, err = control.Call(cctx, l.cfg.StateDir, control.Request{Op: control.OpHandoff, Args: args})
	}
	if err == nil {
		select { // it exits once it has answered
		case <-w.succ.exited:
		case <-time.After(10 * time.Second):
		}
		return true
	}
	l.cfg.Logger.Warn("update: the failed version would not hand the backends back; stopping it", "err", err)
	w.succ.abortGracefully()
	return false
}

// restartOld starts the restored old binary as a fresh instance (the
// failed one is gone), as a restart-mode successor, and says which
// backends it starts again.
func (l *Launcher) restartOld(ctx context.Context, w *updateWatch) {
	var names []string
	for _, spec := range l.cfg.Backends {
		names = append(names, spec.Name)
	}
	succ, err := l.startSuccessor(w.Probation.Exe, nil, nil, []string{fmt.Sprintf("%s=%s", handoffwire.EnvWait, 30*time.Second)})
	if err != nil {
		l.cfg.Logger.Error("update: rollback: start the old version", "err", err)
		return
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := l.waitRunning(cctx, succ); err != nil {
		l.cfg.Logger.Error("update: rollback: the old version did not come up", "err", err)
		return
	}
	fmt.Fprintf(l.cfg.Announce, "update: rolled back to %s (pid %d); the backends were lost with the failed version and are restarted: %s\n",
		w.Probation.Previous, succ.cmd.Process.Pid, strings.Join(names, ", "))
}
