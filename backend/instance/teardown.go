package instance

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/run"
	"hermes-desktop/platform/proc"
)

// teardown ends everything in the tree: a request to stop (askToStop:
// SIGTERM on Unix, the stop message on Windows; to the shim alone when
// there is one: it runs the same sequence on its side), the grace period,
// then SIGKILL to every tracked member and the group. It is idempotent and
// safe to call from the waiter and from stop at once: the second caller
// waits for the first and finds nothing left.
func (i *Instance) teardown(grace time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.collected {
		return
	}
	_ = i.tree.Refresh()
	// The backend's cgroup, when it has one, holds what the tree walk
	// lost (a double-forked daemon): its members are signalled too, and
	// "populated 0" is part of "gone".
	cg := i.cont.open()
	// A live shim runs this same sequence over its tree and collects it;
	// when the shim itself is gone (killed), we do its work.
	shimAlive := i.shim.on() && !i.leader.handle.Exited()
	wait := grace
	switch {
	case shimAlive && askToStop(i):
		wait += run.ShimKillMargin
	case shimAlive:
		wait = 0 // nothing heard the request: waiting would buy nothing
	default:
		askToStop(i)
		i.tree.Add(cgroupMembers(cg)...)
		_ = i.tree.Signal(syscall.SIGTERM)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	allGone := i.leader.handle.Wait(ctx) && i.tree.Wait(ctx) && cgroupGone(ctx, cg)
	cancel()
	_ = i.tree.Refresh() // children forked during the grace period
	if !allGone || len(i.tree.Alive()) > 0 {
		_ = i.leader.handle.Signal(syscall.SIGKILL)
		killCgroup(cg, i.log) // every member at once, a child forked this instant included
		_ = i.tree.Signal(syscall.SIGKILL)
		if i.jobKiller != nil {
			i.jobKiller.kill()
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), proc.KillWait)
	defer cancel()
	if !i.leader.handle.Wait(ctx) || !i.tree.Wait(ctx) || !cgroupGone(ctx, cg) {
		i.log.Add("launcher", fmt.Sprintf("warning: processes still alive %v after SIGKILL", i.tree.Alive()))
	}
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
	i.tree.Prune(ids...)
	i.tree.Add(ids...)
}
