package instance

import (
	"path"

	"hermes-desktop/backend/model"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
)

// Plan is how this launcher holds its backends' trees, decided once
// when it opens (planContainment, per OS).
type Plan struct {
	kind model.Containment
	// reason says why nothing stronger was available ("" when the
	// strongest the OS knows was).
	reason string
	// parent is the launcher's own cgroup, under which each backend's goes
	// (model.ContainmentCgroup).
	parent string
	// scopes is the user's systemd manager (model.ContainmentSystemdScope).
	scopes *cgroup.UserManager
}

// keepsCgroups reports whether backends started behind the shim get a
// cgroup of their own.
func (p *Plan) keepsCgroups() bool {
	return p != nil && (p.kind == model.ContainmentCgroup || p.kind == model.ContainmentSystemdScope)
}

// cgroupFor is where the plan puts the cgroup of the backend with this
// nonce when the launcher creates it directly; "" otherwise (a scope's
// path is only known once the user manager made it).
func (p *Plan) cgroupFor(nonce string) string {
	if p == nil || p.kind != model.ContainmentCgroup {
		return ""
	}
	return path.Join(p.parent, lockfile.CgroupName(nonce))
}

// Close releases the plan's connection to the user manager.
func (p *Plan) Close() {
	if p != nil && p.scopes != nil {
		_ = p.scopes.Close()
	}
}

// Kind is what the plan holds trees with.
func (p *Plan) Kind() model.Containment { return p.kind }

// Reason says why nothing stronger was available ("" when it was).
func (p *Plan) Reason() string { return p.reason }
