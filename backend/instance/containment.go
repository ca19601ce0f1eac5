package instance

import (
	"fmt"
	"path"

	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
)

// Containment names what holds a backend's process tree, strongest first.
// A kernel container (cgroup, scope, job) holds every descendant from
// birth, however it double-forks or scrubs its environment, even when the
// launcher and the watchdog shim die together; the process tree is only as
// good as the shim that walks it.
type Containment string

// Containments.
const (
	// ContainmentCgroup: a cgroup v2 of the backend's own, which the
	// launcher may create itself, under its own cgroup (Linux, where that
	// is writable: root, or a delegated subtree).
	ContainmentCgroup Containment = "cgroup"
	// ContainmentSystemdScope: the same cgroup, inside a transient systemd
	// scope the user's service manager made for the shim (Linux, where the
	// launcher's own cgroup is not writable but a user manager answers).
	ContainmentSystemdScope Containment = "systemd-scope"
	// ContainmentJob: a kill-on-close job object (Windows).
	ContainmentJob Containment = "job"
	// ContainmentProcessTree: the shim's process group, subreaper and tree
	// walk, and the ownership record's evidence; nothing in the kernel.
	ContainmentProcessTree Containment = "process-tree"
)

// ParseContainment reads --containment: "auto" (or "") takes the strongest
// the host offers; a mechanism's name asks for that one (and falls back to
// the process tree, saying why, when the host does not offer it).
func ParseContainment(s string) (Containment, error) {
	switch c := Containment(s); c {
	case "", "auto":
		return "", nil
	case ContainmentCgroup, ContainmentSystemdScope, ContainmentJob, ContainmentProcessTree:
		return c, nil
	}
	return "", fmt.Errorf("backend: containment %q: want auto, %s, %s, %s or %s", s,
		ContainmentCgroup, ContainmentSystemdScope, ContainmentJob, ContainmentProcessTree)
}

// Plan is how this launcher holds its backends' trees, decided once
// when it opens (planContainment, per OS).
type Plan struct {
	kind Containment
	// reason says why nothing stronger was available ("" when the
	// strongest the OS knows was).
	reason string
	// parent is the launcher's own cgroup, under which each backend's goes
	// (ContainmentCgroup).
	parent string
	// scopes is the user's systemd manager (ContainmentSystemdScope).
	scopes *cgroup.UserManager
}

// keepsCgroups reports whether backends started behind the shim get a
// cgroup of their own.
func (p *Plan) keepsCgroups() bool {
	return p != nil && (p.kind == ContainmentCgroup || p.kind == ContainmentSystemdScope)
}

// cgroupFor is where the plan puts the cgroup of the backend with this
// nonce when the launcher creates it directly; "" otherwise (a scope's
// path is only known once the user manager made it).
func (p *Plan) cgroupFor(nonce string) string {
	if p == nil || p.kind != ContainmentCgroup {
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
func (p *Plan) Kind() Containment { return p.kind }

// Reason says why nothing stronger was available ("" when it was).
func (p *Plan) Reason() string { return p.reason }
