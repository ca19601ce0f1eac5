package backend

import (
	"context"
	"fmt"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/lockfile"
)

// runBootReap reaps what earlier runs left behind, keeps the report for
// status and the UI, and clears owner directories nobody holds any more.
func (l *Launcher) runBootReap() {
	report, err := l.reap(context.Background(), false, nil, nil)
	if err != nil {
		l.cfg.Logger.Error("boot reap", "err", err)
		fmt.Fprintf(l.cfg.Announce, "boot reap failed, nothing was signalled: %v\n", err)
		return
	}
	l.reapMu.Lock()
	l.bootReap = report
	l.reapMu.Unlock()
	fmt.Fprintf(l.cfg.Announce, "boot reap: %s\n", report.Summary())
	keep := map[string]bool{l.nonce: true}
	if records, _, err := l.records.Peek(); err == nil {
		for _, r := range records {
			keep[r.Owner.Nonce] = true
		}
	}
	if removed, err := lockfile.RemoveDeadOwners(l.cfg.StateDir, keep); err != nil {
		l.cfg.Logger.Warn("clean owner directories", "err", err)
	} else if len(removed) > 0 {
		l.cfg.Logger.Info("removed the lock directories of dead owners", "count", len(removed))
	}
}

// Reap runs the reaper now (the UI's "Scan now", `hermes-desktop reap`).
// Our own running backends are spared as owned: we hold their owner lock.
// minAge overrides the configured minimum orphan age when non-nil (a
// pointer to 0: no minimum); only, when non-nil, limits the reap to those
// PIDs.
func (l *Launcher) Reap(ctx context.Context, dryRun bool, minAge *time.Duration, only []int) (*reap.Report, error) {
	return l.reap(ctx, dryRun, minAge, only)
}

func (l *Launcher) reap(ctx context.Context, dryRun bool, minAge *time.Duration, only []int) (*reap.Report, error) {
	l.reapRun.Lock()
	defer l.reapRun.Unlock()
	if minAge == nil {
		minAge = l.cfg.MinOrphanAge // never nil once Open applied the defaults
	}
	report, err := reap.Run(ctx, reap.Options{
		StateDir: l.cfg.StateDir, HermesHome: l.cfg.HermesHome, MinAge: minAge,
		DryRun: dryRun, Only: only, Logger: l.cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	l.reapMu.Lock()
	l.lastReap = report
	l.reapMu.Unlock()
	l.events.Publish(model.Event{Kind: model.EventReap, Reap: report})
	return report, nil
}

// ReapReports returns the boot reap's report and the latest one.
func (l *Launcher) ReapReports() (boot, last *reap.Report) {
	l.reapMu.Lock()
	defer l.reapMu.Unlock()
	return l.bootReap, l.lastReap
}
