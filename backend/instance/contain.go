package instance

import (
	"context"
	"fmt"
	"path"

	"hermes-desktop/backend/model"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// containment is what holds one instance's tree: fixed at spawn from the
// launcher's plan (before the goroutines start), then corrected once by
// the shim's report (before known closes).
type containment struct {
	nonce   string
	plan    *Plan
	viaShim bool
	kind    model.Containment
	why     string // why nothing stronger
	cgroup  string // the cgroup planned ("" when none)
	// reported and reportErr are what the shim reported: the cgroup the
	// backend was started in, or why it has none. Written once before
	// known is closed.
	reported, reportErr string
	known               <-chan struct{} // the shim's report is in
}

// planContainment fixes what will hold an instance's tree. Only a backend
// behind the shim gets a cgroup: the shim creates it and starts the
// backend inside.
func planContainment(p Params, nonce string, known <-chan struct{}) containment {
	c := containment{nonce: nonce, plan: p.Contain, viaShim: p.ViaShim, known: known}
	switch {
	case p.Contain == nil:
		c.kind, c.why = model.ContainmentProcessTree, "no containment planned"
	case p.Contain.keepsCgroups() && !p.ViaShim:
		c.kind, c.why = model.ContainmentProcessTree, "the watchdog shim is off (--no-shim), and it is what creates the backend's cgroup"
	default:
		c.kind, c.why = p.Contain.kind, p.Contain.reason
		c.cgroup = p.Contain.cgroupFor(nonce)
	}
	return c
}

// shimCgroup is the cgroup name the shim is asked for ("" for none).
func (c *containment) shimCgroup() string {
	if c.kind == model.ContainmentCgroup || c.kind == model.ContainmentSystemdScope {
		return lockfile.CgroupName(c.nonce)
	}
	return ""
}

// enterScope, when the plan is a systemd scope, asks the user's systemd
// manager for one around the shim (pid), which waits at its start barrier:
// once released, the shim creates the backend's cgroup inside the scope.
// Should the manager refuse, the shim finds its own cgroup unwritable and
// reports that; the backend then runs under the process tree.
func (c *containment) enterScope(pid int, log *logs.Log) {
	if c.kind != model.ContainmentSystemdScope {
		return
	}
	name := lockfile.CgroupName(c.nonce)
	scope, err := c.plan.scopes.StartScope(name+".scope", pid)
	if err != nil {
		log.Add("launcher", "warning: no systemd scope for the backend: "+err.Error())
		c.kind, c.why = model.ContainmentProcessTree, "systemd scope: "+err.Error()
		return
	}
	c.cgroup = path.Join(scope, name)
}

// takeReport keeps what the shim said about the backend's cgroup. Called
// by readShimReport, before known is closed. A cgroup that is not named
// for this backend is not believed.
func (c *containment) takeReport(cgroup, cgroupErr string) {
	if n, ok := lockfile.CgroupNonce(cgroup); cgroup != "" && (!ok || n != c.nonce) {
		cgroupErr, cgroup = fmt.Sprintf("the shim reported a cgroup not named for this backend: %s", cgroup), ""
	}
	c.reported, c.reportErr = cgroup, cgroupErr
}

// current says what holds the tree, and why nothing stronger: the plan,
// until the shim reports that it could not make the cgroup.
func (c *containment) current() (model.Containment, string) {
	select {
	case <-c.known:
		if c.reportErr != "" {
			return model.ContainmentProcessTree, "the watchdog shim could not make the backend's cgroup: " + c.reportErr
		}
	default:
	}
	return c.kind, c.why
}

// treeCgroup is the backend's cgroup path: what the shim reported, or,
// until it has (or if it died first), what was planned. "" when none.
func (c *containment) treeCgroup() string {
	select {
	case <-c.known:
		if c.viaShim {
			return c.reported
		}
	default:
	}
	return c.cgroup
}

// open opens the backend's cgroup; nil when it has none or it is gone.
func (c *containment) open() *cgroup.Cgroup {
	p := c.treeCgroup()
	if p == "" {
		return nil
	}
	cg, err := cgroup.Open(p)
	if err != nil {
		return nil
	}
	return cg
}

// populated reports whether the backend's cgroup still holds a live
// process (or cannot be read): then its record must stay as evidence.
func (c *containment) populated() bool {
	cg := c.open()
	if cg == nil {
		return false
	}
	populated, err := cg.Populated()
	return err != nil || populated
}

// removeCgroup removes the backend's cgroup once the tree is gone; a live
// shim removes it itself before it exits, so it is usually gone already.
func (c *containment) removeCgroup(log *logs.Log) {
	cg := c.open()
	if cg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cgroup.KillWait)
	defer cancel()
	if err := cg.WaitEmpty(ctx); err != nil {
		log.Add("launcher", fmt.Sprintf("warning: cgroup %s not empty: %v", cg.Path(), err))
		return
	}
	if err := cg.Remove(); err != nil {
		log.Add("launcher", "warning: "+err.Error())
	}
}

// cgroupMembers are the live members of cg (nil for none), as identities:
// membership makes a process the backend's, however it left the process
// tree (a double-forked daemon).
func cgroupMembers(cg *cgroup.Cgroup) []proc.Identity {
	if cg == nil {
		return nil
	}
	pids, _ := cg.Members()
	var ids []proc.Identity
	for _, pid := range pids {
		if id, err := proc.Lookup(pid); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// cgroupGone waits until the cgroup is empty, or ctx ends.
func cgroupGone(ctx context.Context, cg *cgroup.Cgroup) bool {
	return cg == nil || cg.WaitEmpty(ctx) == nil
}
