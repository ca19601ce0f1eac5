package instance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/run"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// teardown ends everything in the tree, as a proc.Teardown does: a
// request to stop (to the shim alone when there is one: it runs the same
// sequence on its side; else SIGTERM to the group and each member), the
// grace period, then SIGKILL to every member. The members are the tree
// this instance tracks (proc.Tree: its group, the descendants of the
// leader and of every member seen, which a killed shim would orphan) and
// the backend's cgroup. It is idempotent and safe to call from the waiter
// and from Stop at once: the second caller waits for the first and finds
// nothing left.
func (i *Instance) teardown(grace time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.collected {
		return
	}
	// The backend's cgroup, when it has one, holds what the tree walk
	// lost (a double-forked daemon): its members are signalled too, and
	// "populated 0" is part of "gone".
	cg := i.cont.open()
	td := i.newTeardown(cg)
	defer td.Close()
	// A live shim runs this same sequence over its tree and collects it;
	// when the shim itself is gone (killed), we do its work.
	shimAlive := i.shim.on() && !i.leader.handle.Exited()
	wait := grace
	switch {
	case shimAlive && askToStop(i):
		wait += run.ShimKillMargin
		_ = td.Pin() // what to wait for
	case shimAlive:
		wait = 0 // nothing heard the request: waiting would buy nothing
	default:
		_, _ = td.Term()
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	allGone := td.Wait(ctx) && cgroupGone(ctx, cg)
	cancel()
	if !allGone || len(i.members(cg)) > 0 { // children forked during the grace period count
		kill := i.newTeardown(cg) // the members found again: children forked meanwhile too
		defer kill.Close()
		// The cgroup first (KillAll: every member at once, a child forked
		// this instant included), then each member listed.
		if err := kill.Kill(); errors.Is(err, proc.ErrKillAll) {
			i.log.Add("launcher", "warning: "+err.Error())
		}
		if i.jobKiller != nil {
			i.jobKiller.kill()
		}
		td = kill
	}
	ctx, cancel = context.WithTimeout(context.Background(), proc.KillWait)
	defer cancel()
	if !td.Wait(ctx) || !cgroupGone(ctx, cg) {
		i.log.Add("launcher", fmt.Sprintf("warning: processes still alive %v after SIGKILL", i.tree.alive()))
	}
}

// newTeardown is the proc.Teardown of the tree as it is now: the leader,
// its group while it is pinned (our uncollected child's; an adopted
// leader's is not), and the members the tree and the cgroup list.
func (i *Instance) newTeardown(cg *cgroup.Cgroup) *proc.Teardown {
	group := 0
	if i.leader.cmd != nil {
		group = GroupOf(i.leader.id.PID)
	}
	var killAll func() error
	if cg != nil {
		killAll = cg.Kill
	}
	return &proc.Teardown{
		Root: i.leader.id.PID, Leader: i.leader.handle, Group: group, KillAll: killAll,
		// The group as a whole too: our uncollected leader pins it, and a
		// process forked into it after the last listing is then not missed.
		KillGroup: group != 0,
		Members:   func() ([]int, error) { return i.members(cg), nil },
		// Still the member the tree tracks, now that its handle is open:
		// one that exited, its PID reused, is no longer alive in the tree.
		Held: i.tree.holds,
	}
}

// members are the tree's live members, found again: the group, the
// descendants of the leader and of every member, and the cgroup's
// members. Called with mu held.
func (i *Instance) members(cg *cgroup.Cgroup) []int {
	_ = i.tree.refresh()
	i.tree.add(cgroupMembers(cg)...)
	return i.tree.alive()
}

// track adds sampled processes to the tree the teardown ends, so a
// descendant that a killed shim would orphan is still known. Skipped when a
// teardown holds the tree: it refreshes the tree itself.
func (i *Instance) track(ps []leakguard.TreeProc) {
	if !i.mu.TryLock() {
		return
	}
	defer i.mu.Unlock()
	if i.collected {
		return
	}
	ids := make([]proc.Identity, len(ps))
	for n, p := range ps {
		ids[n] = p.Identity()
	}
	i.tree.prune(ids...)
	i.tree.add(ids...)
}
