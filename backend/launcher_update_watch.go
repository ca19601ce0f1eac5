package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/handoffwire"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
	"hermes-desktop/internal/proc"
)

// The health window after an update, and who watches it.
//
// After an update handoff commits, the old instance owns nothing any more
// (no lock, no socket, no backend), but the new instance is its child:
// started by its cmd.Start, reaped by its Wait. So instead of exiting, the
// old process stays for the window as the watcher (WatchUpdate). Its Wait
// returns the moment the new instance dies, however it dies: no polling,
// and no PID reuse (an unreaped child's PID cannot be reused). It also
// probes the new instance's status on the control socket, about once a
// second, for a failed or crash-looping backend. It runs the old binary,
// whose file is kept as .old, so it can restore and start the old version
// without anything from the failed one. The new instance learns it is on
// probation from <state>/updates/probation.json, which the watcher writes
// before the handoff (status: probation_until; no update starts meanwhile).
//
// Verdicts:
//   - the window passes, the new instance healthy: it is kept, the record
//     removed (.old stays, for the next update to replace).
//   - it exits 0 (quit, stop, logout, its own handoff): not a failure.
//   - it dies (non-zero exit, signal), stops answering, or a backend fails
//     or crashes twice (restarts on request do not count): roll back. .old is restored and the version marked
//     bad (update.MarkBad). If the new instance still runs, it is asked to
//     hand the backends back to the restored binary (same PIDs, same
//     ports); if it is gone, or will not, it is stopped (our child) and the
//     restored binary starts fresh: its boot reap removes what is left and
//     it starts the backends again. Which of the two happened is logged and
//     shown to the user by the restored instance (update.RecordRollback).
//   - the watcher itself is stopped (SIGTERM, logout): the record stays,
//     and the next start, seeing its watcher gone, says the check was
//     interrupted (noteProbation). Nothing can tell then whether the new
//     version failed, so it stays.

// updateWatch is what the watcher needs: the new instance (our child), the
// window, and each backend's crash count when the handoff began.
type updateWatch struct {
	succ     *successor
	p        update.Probation
	baseline map[string]int
}

// watchVerdict is how a window ended.
type watchVerdict int

const (
	verdictPassed    watchVerdict = iota // healthy to the end: keep
	verdictStopped                       // exited 0 inside the window: not a failure
	verdictFailed                        // roll back
	verdictAbandoned                     // the watcher was told to stop
)

// probeMisses is how many status probes in a row may go unanswered.
const probeMisses = 3

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
	verdict, why := l.watchWindow(ctx, w)
	switch verdict {
	case verdictPassed:
		_ = update.ClearProbation(l.upd.dir)
		fmt.Fprintf(l.cfg.Announce, "update: %s passed its health window (%v)\n", w.p.Version, w.p.Window)
	case verdictStopped:
		_ = update.ClearProbation(l.upd.dir)
		fmt.Fprintf(l.cfg.Announce, "update: %s was stopped inside its health window (%s): not a failure\n", w.p.Version, why)
	case verdictFailed:
		l.rollback(ctx, w, why)
	case verdictAbandoned:
		l.cfg.Logger.Warn("update: the health window's watch was interrupted", "version", w.p.Version)
	}
}

// watchWindow waits for the window's end, the new instance's exit, or a
// failed probe.
func (l *Launcher) watchWindow(ctx context.Context, w *updateWatch) (watchVerdict, string) {
	deadline := time.NewTimer(max(time.Until(w.p.Until()), 0))
	defer deadline.Stop()
	probe := time.NewTicker(min(max(w.p.Window/20, 50*time.Millisecond), time.Second))
	defer probe.Stop()
	misses := 0
	for {
		select {
		case <-ctx.Done():
			return verdictAbandoned, ""
		case <-w.succ.exited:
			st := w.succ.cmd.ProcessState
			after := time.Since(w.p.Started).Round(time.Millisecond)
			if st.Success() {
				return verdictStopped, fmt.Sprintf("it exited 0 after %v", after)
			}
			return verdictFailed, fmt.Sprintf("the new version exited (%v) %v after the update", st, after)
		case <-probe.C:
			why, answered := l.probeSuccessor(ctx, w)
			if why != "" {
				return verdictFailed, why
			}
			if misses = misses + 1; answered {
				misses = 0
			}
			if misses >= probeMisses {
				return verdictFailed, "the new version stopped answering on the control socket"
			}
		case <-deadline.C:
			why, answered := l.probeSuccessor(ctx, w)
			if why == "" && !answered {
				why = "the new version did not answer at the end of its health window"
			}
			if why != "" {
				return verdictFailed, why
			}
			return verdictPassed, ""
		}
	}
}

// probeSuccessor asks the new instance for its status. It returns why the
// new version failed ("" if it did not), and whether it answered at all.
func (l *Launcher) probeSuccessor(ctx context.Context, w *updateWatch) (string, bool) {
	st, err := statusOf(ctx, l.cfg.StateDir)
	if err != nil || st.Instance.PID != w.succ.cmd.Process.Pid {
		return "", false
	}
	for _, b := range st.Backends {
		switch {
		case b.State == model.StateFailed:
			return fmt.Sprintf("backend %s failed under the new version: %s", b.Name, b.LastError), true
		case b.Crashes-w.baseline[b.Name] >= 2:
			return fmt.Sprintf("backend %s crashed %d times under the new version", b.Name, b.Crashes-w.baseline[b.Name]), true
		}
	}
	return "", true
}

// rollback restores the old version, marks the new one bad and gets the
// backends back under the old version: handed back if the new instance
// still runs and agrees, else started fresh.
func (l *Launcher) rollback(ctx context.Context, w *updateWatch, why string) {
	dir, p := l.upd.dir, w.p
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
	err := l.waitSettled(cctx, w)
	if err == nil {
		args, _ := json.Marshal(handoffwire.Args{To: w.p.Exe, Mode: updateHandoffMode(), TimeoutNS: int64(time.Minute)})
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

// waitSettled waits (up to 20 s) until every backend of the new instance
// is ready or attached, as a handoff needs: a crash loop leaves one
// restarting for a moment. A failed backend will not get there.
func (l *Launcher) waitSettled(ctx context.Context, w *updateWatch) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		st, err := statusOf(ctx, l.cfg.StateDir)
		settled := err == nil && st.Instance.PID == w.succ.cmd.Process.Pid
		for _, b := range st.Backends {
			if b.State == model.StateFailed {
				return fmt.Errorf("backend %s failed", b.Name)
			}
			settled = settled && (b.State == model.StateReady || b.State == model.StateExternal)
		}
		if settled {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the backends did not settle: %w", ctx.Err())
		case <-w.succ.exited:
			return fmt.Errorf("the new version exited")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// statusOf asks the instance on stateDir for its status.
func statusOf(ctx context.Context, stateDir string) (model.Status, error) {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var st model.Status
	res, err := control.Call(cctx, stateDir, control.Request{Op: control.OpStatus})
	if err == nil {
		err = json.Unmarshal(res, &st)
	}
	return st, err
}

// restartOld starts the restored old binary as a fresh instance (the
// failed one is gone), as a restart-mode successor, and says which
// backends it starts again.
func (l *Launcher) restartOld(ctx context.Context, w *updateWatch) {
	var names []string
	for _, spec := range l.cfg.Backends {
		names = append(names, spec.Name)
	}
	succ, err := l.startSuccessor(w.p.Exe, nil, nil, []string{fmt.Sprintf("%s=%s", handoffwire.EnvWait, 30*time.Second)})
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
		w.p.Previous, succ.cmd.Process.Pid, strings.Join(names, ", "))
}

// watcherAlive reports whether a probation record's watcher still runs
// (its identity checked, so a reused PID does not count).
func watcherAlive(p *update.Probation) bool {
	return p.Watcher.PID > 0 && proc.Check(p.Watcher) == nil
}
