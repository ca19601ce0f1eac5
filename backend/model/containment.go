package model

import "fmt"

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
