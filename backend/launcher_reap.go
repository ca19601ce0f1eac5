package backend

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/reapreport"
	"hermes-desktop/lockfile"
)

// reapHistory runs the reaper for the launcher, one run at a time, and
// keeps the boot reap's report and the latest one for status, and the
// remote reaps' decisions, which every report it hands out carries.
type reapHistory struct {
	running sync.Mutex // held through a run: one at a time
	mu      sync.Mutex // guards boot, last and remote
	boot    *reapreport.Report
	last    *reapreport.Report
	remote  []reapreport.RemoteDecision // the latest per host and session, oldest first
}

// maxRemoteDecisions bounds the remote decisions kept: the oldest go.
const maxRemoteDecisions = 100

// addRemote keeps a remote reap's decisions (remote.Runner.Reaped): each
// replaces an earlier one on the same session of the same host, so a
// session spared at each start there is listed once.
func (h *reapHistory) addRemote(ds []reapreport.RemoteDecision) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range ds {
		h.remote = slices.DeleteFunc(h.remote, func(o reapreport.RemoteDecision) bool {
			return o.Host == d.Host && o.OwnershipID == d.OwnershipID
		})
		h.remote = append(h.remote, d)
	}
	if n := len(h.remote) - maxRemoteDecisions; n > 0 {
		h.remote = slices.Delete(h.remote, 0, n)
	}
}

// withRemote is r (a copy) with the remote decisions kept; nil stays nil.
// Called with mu held.
func (h *reapHistory) withRemote(r *reapreport.Report) *reapreport.Report {
	if r == nil || len(h.remote) == 0 {
		return r
	}
	c := *r
	c.Remote = slices.Clone(h.remote)
	return &c
}

// run runs the reaper and keeps its report as the latest.
func (h *reapHistory) run(ctx context.Context, opts reap.Options) (*reapreport.Report, error) {
	h.running.Lock()
	defer h.running.Unlock()
	report, err := reap.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.last = report
	h.mu.Unlock()
	return report, nil
}

// setBoot keeps the boot reap's report.
func (h *reapHistory) setBoot(report *reapreport.Report) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.boot = report
}

// reports returns the boot reap's report and the latest one (the same
// pointer when the latest is the boot's), each with the remote reaps'
// decisions.
func (h *reapHistory) reports() (boot, last *reapreport.Report) {
	h.mu.Lock()
	defer h.mu.Unlock()
	boot = h.withRemote(h.boot)
	if h.last == h.boot {
		return boot, boot
	}
	return boot, h.withRemote(h.last)
}

// attach is r with the remote reaps' decisions.
func (h *reapHistory) attach(r *reapreport.Report) *reapreport.Report {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.withRemote(r)
}

// runBootReap reaps what earlier runs left behind, keeps the report for
// status and the UI, and clears owner directories nobody holds any more.
func (l *Launcher) runBootReap() {
	report, err := l.Reap(context.Background(), false, nil, nil)
	if err != nil {
		l.cfg.Logger.Error("boot reap", "err", err)
		fmt.Fprintf(l.cfg.Announce, "boot reap failed, nothing was signalled: %v\n", err)
		return
	}
	l.reaps.setBoot(report)
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
func (l *Launcher) Reap(ctx context.Context, dryRun bool, minAge *time.Duration, only []int) (*reapreport.Report, error) {
	if minAge == nil {
		minAge = l.cfg.MinOrphanAge // never nil once Open applied the defaults
	}
	report, err := l.reaps.run(ctx, reap.Options{
		StateDir: l.cfg.StateDir, HermesHome: l.cfg.HermesHome, MinAge: minAge,
		DryRun: dryRun, Only: only, Logger: l.cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	report = l.reaps.attach(report)
	l.events.Publish(model.Event{Kind: model.EventReap, Reap: report})
	return report, nil
}
