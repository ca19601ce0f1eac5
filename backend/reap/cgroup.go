package reap

import (
	"context"
	"fmt"
	"path"
	"strings"

	"hermes-desktop/backend/reapreport"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// Leftover backend cgroups. Each backend (on Linux, where a cgroup could be
// made) ran in a cgroup named hermes-backend-<its nonce>, which everything
// it ever started was born into and could not leave: a double-forked,
// setsid'd, environment-less daemon included. So after a crash that took
// the launcher and the shim together, membership is the evidence that
// outlives both. The reaper looks under its own cgroup (where a launcher
// puts its backends') and wherever a record says it put one, and acts on a
// cgroup only with the ownership rule of the process records: a record in
// this state dir with the nonce its name carries, whose owner lock is free
// and whose owner process is gone. Then every member is killed at once
// (cgroup.kill), the cgroup is watched until "populated 0" and removed.

// membersOf lists the processes in a cgroup with their command lines.
func membersOf(pids []int) []reapreport.CgroupMember {
	out := make([]reapreport.CgroupMember, 0, len(pids))
	for _, pid := range pids {
		argv, _ := proc.Cmdline(pid) // gone meanwhile: no command line, still named
		out = append(out, reapreport.CgroupMember{PID: pid, Cmdline: argv})
	}
	return out
}

// cgroupCandidate is a leftover backend cgroup and what names it.
type cgroupCandidate struct {
	cg     *cgroup.Cgroup
	nonce  string
	record *lockfile.Record // nil when no record names the nonce
}

// reapCgroups decides on every backend cgroup found, in path order, and
// (unless this is a dry run) kills and removes the abandoned ones. A reap
// limited to some PIDs (Only) leaves cgroups alone.
func (r *reaper) reapCgroups(ctx context.Context) []reapreport.CgroupDecision {
	if r.only != nil {
		return nil
	}
	var out []reapreport.CgroupDecision
	for _, c := range r.findCgroups() {
		d := r.decideCgroup(c)
		if d.Action == reapreport.ActionWouldReap && !r.o.DryRun {
			r.killCgroup(ctx, c, &d)
		}
		out = append(out, d)
	}
	return out
}

// findCgroups lists the backend cgroups under the reaper's own cgroup (or
// Options.CgroupParent) and those the records name, each once.
func (r *reaper) findCgroups() []cgroupCandidate {
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	if parent := r.cgroupParent(); parent != "" {
		if cg, err := cgroup.Open(parent); err == nil {
			names, _ := cg.Children()
			for _, name := range names {
				if _, ok := lockfile.CgroupNonce(name); ok {
					add(path.Join(parent, name))
				}
			}
		}
	}
	for _, rec := range r.records {
		if rec.Cgroup != "" { // validated with the record: named for its nonce
			add(rec.Cgroup)
		}
	}
	var out []cgroupCandidate
	for _, p := range paths {
		cg, err := cgroup.Open(p)
		if err != nil {
			continue // not there (any more): nothing to do
		}
		nonce, _ := lockfile.CgroupNonce(p)
		out = append(out, cgroupCandidate{cg: cg, nonce: nonce, record: r.byNonce[nonce]})
	}
	return out
}

// cgroupParent is where backends' cgroups are looked for: the option, else
// the reaper's own cgroup ("" when there is none).
func (r *reaper) cgroupParent() string {
	if r.o.CgroupParent != "" {
		return r.o.CgroupParent
	}
	own, err := cgroup.Own()
	if err != nil {
		return ""
	}
	return own
}

// decideCgroup applies the ownership rule to one cgroup.
func (r *reaper) decideCgroup(c cgroupCandidate) reapreport.CgroupDecision {
	members, _ := c.cg.Members()
	d := reapreport.CgroupDecision{Cgroup: c.cg.Path(), Action: reapreport.ActionSpared, Members: len(members), Processes: membersOf(members)}
	spare := func(reason, format string, a ...any) reapreport.CgroupDecision {
		d.Reason, d.Detail = reason, fmt.Sprintf(format, a...)
		return d
	}
	if own, err := cgroup.Own(); err == nil && (own == c.cg.Path() || strings.HasPrefix(own, c.cg.Path()+"/")) {
		return spare(reapreport.ReasonAncestor, "the reaper itself runs in this cgroup")
	}
	rec := c.record
	if rec == nil {
		return spare(reapreport.ReasonFailClosed, "no backend this Hermes Desktop saved ran in it: it may be another one's (%s in it)", processes(len(members)))
	}
	held, err := r.v.OwnerLockHeld(rec.Owner.Nonce)
	if err != nil {
		return spare(reapreport.ReasonFailClosed, "whether the Hermes Desktop that started it still runs could not be checked (%v)", err)
	}
	if held {
		return spare(reapreport.ReasonOwned, "it belongs to the Hermes Desktop running now (PID %d)", rec.Owner.PID)
	}
	if alive, err := r.v.Running(rec.Owner.Identity(rec.BootID)); err != nil || alive {
		return spare(reapreport.ReasonOwned, "the Hermes Desktop that started it (PID %d) still runs, or cannot be checked: left alone", rec.Owner.PID)
	}
	d.Action, d.Reason = reapreport.ActionWouldReap, reapreport.ReasonOwnerDead
	d.Detail = fmt.Sprintf("it was a backend of Hermes Desktop (PID %d), which has exited; %s in it", rec.Owner.PID, processes(len(members)))
	return d
}

// killCgroup kills every member at once, waits for "populated 0" and
// removes the cgroup. Members the never-signalled rules protect (a gateway
// the backend started, another user's process) are spared: the cgroup is
// frozen while they are picked out, the rest killed one by one, and the
// cgroup stays.
func (r *reaper) killCgroup(ctx context.Context, c cgroupCandidate, d *reapreport.CgroupDecision) {
	spared, err := c.cg.KillExcept(r.untouchable)
	if err != nil {
		d.Action, d.Detail = reapreport.ActionFailed, fmt.Sprintf("%s; kill failed: %v", d.Detail, err)
		return
	}
	if len(spared) > 0 {
		d.Action, d.Detail = reapreport.ActionReaped, fmt.Sprintf("%s; the rest killed, but pids %v are never signalled (see the process decisions), so the cgroup stays", d.Detail, spared)
		return
	}
	waitCtx, cancel := context.WithTimeout(ctx, cgroup.KillWait)
	defer cancel()
	if err := c.cg.WaitEmpty(waitCtx); err != nil {
		d.Action, d.Detail = reapreport.ActionFailed, fmt.Sprintf("%s; still populated after cgroup.kill: %v", d.Detail, err)
		return
	}
	if err := c.cg.Remove(); err != nil {
		d.Action, d.Detail = reapreport.ActionFailed, fmt.Sprintf("%s; killed, but not removed: %v", d.Detail, err)
		return
	}
	d.Action, d.Detail = reapreport.ActionReaped, d.Detail+"; killed (cgroup.kill) and removed"
}

// cgroupLive reports whether the record's cgroup still holds a process
// (or cannot be read): the record stays as evidence.
func cgroupLive(rec *lockfile.Record) bool {
	if rec.Cgroup == "" {
		return false
	}
	cg, err := cgroup.Open(rec.Cgroup)
	if err != nil {
		return false
	}
	populated, err := cg.Populated()
	return err != nil || populated
}

// processes says a count of processes: "1 process", "3 processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}
