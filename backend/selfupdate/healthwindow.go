package selfupdate

import (
	"context"
	"fmt"
	"os"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
	"hermes-desktop/platform/proc"
)

// The health window after an update judges the new version: the old
// process, which started the new instance and so reaps it,
// watches for its exit and probes its status on the control socket.
//
// After an update handoff commits, the old instance owns nothing any more
// (no lock, no socket, no backend), but the new instance is its child:
// started by its cmd.Start, collected by its Wait. So instead of exiting, the
// old process stays for the window as the watcher. Its Wait returns the
// moment the new instance dies, however it dies: no polling, and no PID
// reuse (an uncollected child's PID cannot be reused). It also probes the new
// instance's status about once a second, for a failed or crash-looping
// backend. It runs the old binary, whose file is kept as .old, so it can
// restore and start the old version without anything from the failed one.
// The new instance learns it is on probation from
// <state>/updates/probation.json, which the watcher writes before the
// handoff (status: probation_until; no update starts meanwhile).
//
// Verdicts:
//   - the window passes, the new instance healthy: it is kept, the record
//     removed (.old stays, for the next update to replace).
//   - it exits 0 (quit, stop, logout, its own handoff): not a failure.
//   - it dies (non-zero exit, signal), stops answering, or a backend fails
//     or crashes twice (restarts on request do not count): roll back
//     (rollback.go: .old restored, the version marked bad, the backends
//     handed back or started fresh, and the user told which).
//   - the watcher itself is stopped (SIGTERM, logout): the record stays,
//     and the next start, seeing its watcher gone (WatcherAlive), says the
//     check was interrupted. Nothing can tell then whether the new version
//     failed, so it stays.

// Watch is what the watcher needs: the new instance (its child), the
// window, and each backend's crash count when the handoff began.
type Watch struct {
	PID int
	// Exited is closed once the new instance has been collected; ExitState
	// then says how it ended.
	Exited    <-chan struct{}
	ExitState func() *os.ProcessState
	Probation update.Probation
	Baseline  map[string]int
	StateDir  string // where the new instance's control socket is
}

// Verdict is how a window ended.
type Verdict int

const (
	// Passed means healthy to the end of the window: the new version is kept.
	Passed Verdict = iota
	// Stopped means it exited 0 inside the window: not a failure.
	Stopped
	// Failed means it died, stopped answering or lost a backend: roll back.
	Failed
	// Abandoned means the watcher was told to stop: nothing is decided.
	Abandoned
)

// probeMisses is how many status probes in a row may go unanswered.
const probeMisses = 3

// Wait waits for the window's end, the new instance's exit, or a failed
// probe, and says why when the verdict is not Passed.
func (w *Watch) Wait(ctx context.Context) (Verdict, string) {
	p := w.Probation
	deadline := time.NewTimer(max(time.Until(p.Until()), 0))
	defer deadline.Stop()
	probe := time.NewTicker(min(max(p.Window/20, 50*time.Millisecond), time.Second))
	defer probe.Stop()
	misses := 0
	for {
		select {
		case <-ctx.Done():
			return Abandoned, ""
		case <-w.Exited:
			st := w.ExitState()
			after := time.Since(p.Started).Round(time.Millisecond)
			if st.Success() {
				return Stopped, fmt.Sprintf("it exited 0 after %v", after)
			}
			return Failed, fmt.Sprintf("the new version exited (%v) %v after the update", st, after)
		case <-probe.C:
			why, answered := w.probe(ctx)
			if why != "" {
				return Failed, why
			}
			if misses = misses + 1; answered {
				misses = 0
			}
			if misses >= probeMisses {
				return Failed, "the new version stopped answering on its control channel"
			}
		case <-deadline.C:
			why, answered := w.probe(ctx)
			if why == "" && !answered {
				why = "the new version did not answer at the end of its health window"
			}
			if why != "" {
				return Failed, why
			}
			return Passed, ""
		}
	}
}

// probe asks the new instance for its status. It returns why the new
// version failed ("" if it did not), and whether it answered at all.
func (w *Watch) probe(ctx context.Context) (string, bool) {
	st, err := protocol.StatusOf(ctx, w.StateDir)
	if err != nil || st.Instance.PID != w.PID {
		return "", false
	}
	for _, b := range st.Backends {
		switch {
		case b.State == model.StateFailed:
			return fmt.Sprintf("backend %s failed under the new version: %s", b.Name, b.LastError), true
		case b.Crashes-w.Baseline[b.Name] >= 2:
			return fmt.Sprintf("backend %s crashed %d times under the new version", b.Name, b.Crashes-w.Baseline[b.Name]), true
		}
	}
	return "", true
}

// WaitSettled waits (up to 20 s) until every backend of the new instance
// is ready or attached, as a handoff needs: a crash loop leaves one
// restarting for a moment. A failed backend will not get there.
func (w *Watch) WaitSettled(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		st, err := protocol.StatusOf(ctx, w.StateDir)
		settled := err == nil && st.Instance.PID == w.PID
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
		case <-w.Exited:
			return fmt.Errorf("the new version exited")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// WatcherAlive reports whether a probation record's watcher still runs
// (its identity checked, so a reused PID does not count).
func WatcherAlive(p *update.Probation) bool {
	return p.Watcher.PID > 0 && proc.Check(p.Watcher) == nil
}
