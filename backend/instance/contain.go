package instance

import (
	"context"
	"fmt"
	"path"
	"syscall"

	"hermes-desktop/backend/model"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// PlanContainment fixes what will hold this instance's tree. Only a
// backend behind the shim gets a cgroup: the shim creates it and starts
// the backend inside.
func (i *Instance) planContainment(p Params) {
	switch {
	case p.Contain == nil:
		i.contain, i.containWhy = model.ContainmentProcessTree, "no containment planned"
	case p.Contain.keepsCgroups() && !p.ViaShim:
		i.contain, i.containWhy = model.ContainmentProcessTree, "the watchdog shim is off (--no-shim), and it is what creates the backend's cgroup"
	default:
		i.contain, i.containWhy = p.Contain.kind, p.Contain.reason
		i.cgroup = p.Contain.cgroupFor(i.nonce)
	}
}

// shimCgroup is the cgroup name the shim is asked for ("" for none).
func (i *Instance) shimCgroup() string {
	if i.contain == model.ContainmentCgroup || i.contain == model.ContainmentSystemdScope {
		return lockfile.CgroupName(i.nonce)
	}
	return ""
}

// enterScope asks the user's systemd manager for a scope around the shim,
// which waits at its start barrier: once released, the shim creates the
// backend's cgroup inside the scope. Should the manager refuse, the shim
// finds its own cgroup unwritable and reports that; the backend then runs
// under the process tree.
func (i *Instance) enterScope(plan *Plan) {
	name := lockfile.CgroupName(i.nonce)
	scope, err := plan.scopes.StartScope(name+".scope", i.leader.PID)
	if err != nil {
		i.log.Add("launcher", "warning: no systemd scope for the backend: "+err.Error())
		i.contain, i.containWhy = model.ContainmentProcessTree, "systemd scope: "+err.Error()
		return
	}
	i.cgroup = path.Join(scope, name)
}

// takeReport keeps what the shim said about the backend's cgroup. Called
// by readShimReport, before backendKnown is closed. A cgroup that is not
// named for this backend is not believed.
func (i *Instance) takeReport(cgroup, cgroupErr string) {
	if n, ok := lockfile.CgroupNonce(cgroup); cgroup != "" && (!ok || n != i.nonce) {
		cgroupErr, cgroup = fmt.Sprintf("the shim reported a cgroup not named for this backend: %s", cgroup), ""
	}
	i.reportedCgroup, i.cgroupErr = cgroup, cgroupErr
}

// Containment says what holds the tree, and why nothing stronger: the
// plan, until the shim reports that it could not make the cgroup.
func (i *Instance) Containment() (model.Containment, string) {
	select {
	case <-i.backendKnown:
		if i.cgroupErr != "" {
			return model.ContainmentProcessTree, "the watchdog shim could not make the backend's cgroup: " + i.cgroupErr
		}
	default:
	}
	return i.contain, i.containWhy
}

// TreeCgroup is the backend's cgroup path: what the shim reported, or,
// until it has (or if it died first), what was planned. "" when none.
func (i *Instance) TreeCgroup() string {
	select {
	case <-i.backendKnown:
		if i.viaShim {
			return i.reportedCgroup
		}
	default:
	}
	return i.cgroup
}

// openCgroup opens the backend's cgroup; nil when it has none or it is
// gone.
func (i *Instance) openCgroup() *cgroup.Cgroup {
	p := i.TreeCgroup()
	if p == "" {
		return nil
	}
	cg, err := cgroup.Open(p)
	if err != nil {
		return nil
	}
	return cg
}

// trackCgroup adds the cgroup's members to the tree, so the teardown's
// SIGTERM reaches each once, including what left the process tree (a
// double-forked daemon): membership makes it the backend's.
func (i *Instance) trackCgroup(cg *cgroup.Cgroup) {
	if cg == nil {
		return
	}
	pids, _ := cg.Members()
	for _, pid := range pids {
		if id, err := proc.Lookup(pid); err == nil {
			i.tree.Add(id)
		}
	}
}

// cgroupGone waits until the cgroup is empty, or ctx ends.
func cgroupGone(ctx context.Context, cg *cgroup.Cgroup) bool {
	return cg == nil || cg.WaitEmpty(ctx) == nil
}

// killCgroup SIGKILLs every member of the cgroup at once.
func (i *Instance) killCgroup(cg *cgroup.Cgroup) {
	if cg == nil {
		return
	}
	if err := cg.Kill(); err != nil {
		i.log.Add("launcher", "warning: cgroup.kill: "+err.Error())
	}
}

// cgroupPopulated reports whether the backend's cgroup still holds a live
// process (or cannot be read): then its record must stay as evidence.
func (i *Instance) cgroupPopulated() bool {
	cg := i.openCgroup()
	if cg == nil {
		return false
	}
	populated, err := cg.Populated()
	return err != nil || populated
}

// removeCgroup removes the backend's cgroup once the tree is gone; a live
// shim removes it itself before it exits, so it is usually gone already.
func (i *Instance) removeCgroup() {
	cg := i.openCgroup()
	if cg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cgroup.KillWait)
	defer cancel()
	if err := cg.WaitEmpty(ctx); err != nil {
		i.log.Add("launcher", fmt.Sprintf("warning: cgroup %s not empty: %v", cg.Path(), err))
		return
	}
	if err := cg.Remove(); err != nil {
		i.log.Add("launcher", "warning: "+err.Error())
	}
}

// signalTreeTERM is the TERM half of a teardown through the cgroup: the
// members join the tree and the tree is signalled, each process once.
func (i *Instance) signalTreeTERM(cg *cgroup.Cgroup) {
	i.trackCgroup(cg)
	_ = i.tree.Signal(syscall.SIGTERM)
}
