package reap

import (
	"context"
	"fmt"

	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// protectedReasons are the decisions no tree kill may override: a doomed
// shim's SIGTERM must not reach, say, a fixed-port server that happens to
// run under it.
var protectedReasons = map[string]bool{
	ReasonAncestor: true, ReasonOtherUser: true, ReasonExcludedEnv: true, ReasonSSHLock: true, ReasonSSHTokenFile: true,
	ReasonGatewayPIDFile: true, ReasonServiceManaged: true, ReasonFixedPort: true, ReasonNotLoopback: true,
	ReasonFailClosed: true, ReasonIdentityMismatch: true, ReasonOwned: true,
}

// kill reaps the doomed candidates together (proc.EndAll): every tree
// pinned before any is signalled, SIGTERM to each, one shared grace period,
// then SIGKILL to survivors and anything they started meanwhile. Every
// signal goes through a handle opened before the identity check, and never
// to a process another decision protects. The group is not signalled as a
// whole: the root is not our child, so its group id is not pinned once it
// exits.
func (r *reaper) kill(ctx context.Context, all []Decision, doomed []*Decision) {
	protected := map[int]bool{}
	for _, d := range all {
		if d.Action == ActionSpared && protectedReasons[d.Reason] {
			protected[d.PID] = true
		}
	}
	var ends []*Decision
	var trees []*proc.Teardown
	for _, d := range doomed {
		h, err := proc.Open(d.id)
		if err != nil {
			if proc.IsGone(err) {
				d.Action, d.Detail = ActionReaped, d.Detail+" (it exited by itself)"
			} else {
				d.Action, d.Detail = ActionFailed, fmt.Sprintf("%s; re-validation failed: %v", d.Detail, err)
			}
			continue
		}
		defer h.Close()
		td := &proc.Teardown{Root: d.id.PID, Leader: h, Skip: r.skipper(protected)}
		defer td.Close()
		ends, trees = append(ends, d), append(trees, td)
	}
	for i, gone := range proc.EndAll(ctx, r.o.Grace, trees...) {
		if gone {
			ends[i].Action = ActionReaped
		} else {
			ends[i].Action, ends[i].Detail = ActionFailed, ends[i].Detail+"; still alive after SIGKILL"
		}
	}
}

// skipper says which tree members are never signalled: those a decision
// spared, and any member that the never-signalled rules cover even though
// it was no candidate (a gateway a backend started, another user's or
// another service's process).
func (r *reaper) skipper(protected map[int]bool) func(pid int) bool {
	return func(member int) bool { return protected[member] || r.untouchable(member) }
}

// untouchable applies to a tree member the never-signalled rules that hold
// whatever a process's shape: who owns it, and the SSH session token on its
// command line. Unreadable means untouchable.
func (r *reaper) untouchable(pid int) bool {
	p, err := r.v.Stat(pid)
	if err != nil {
		return !proc.IsGone(err)
	}
	argv, err := r.v.Cmdline(pid)
	if err != nil {
		return !proc.IsGone(err)
	}
	c := candidate{pid: pid, proc: p, argv: argv}
	return r.neverSignalledByOwner(c) != nil || r.sshSessionRule(c) != nil
}

// dropRecords removes records whose processes are verifiably gone (reaped,
// exited, or their PIDs reused) and whose owner is dead. Records of live
// owners, and of processes that survived, stay: they are evidence.
func (r *reaper) dropRecords() []string {
	rs, err := lockfile.OpenRecords(r.o.StateDir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, rec := range r.records {
		if !r.ownerDead(rec) || r.recordLive(rec) {
			continue
		}
		if err := rs.Remove(rec.Nonce); err == nil {
			removed = append(removed, rec.Nonce)
		}
	}
	return removed
}

// recordLive reports whether any process of the record may still be the
// one it names. Unreadable counts as live: fail closed.
func (r *reaper) recordLive(rec *lockfile.Record) bool {
	if cgroupLive(rec) {
		return true
	}
	for _, id := range []*proc.Identity{rec.Shim, rec.Backend} {
		if id == nil {
			continue
		}
		check := *id
		if check.BootID == "" {
			check.BootID = rec.BootID
		}
		alive, err := r.v.Running(check) // a zombie has exited: nothing left to reap
		if err != nil || alive {
			return true
		}
	}
	return false
}
