package instance

import (
	"strings"

	"hermes-desktop/platform/cgroup"
)

// PlanContainment picks the strongest containment Linux offers here, or
// the one asked for: a cgroup the launcher creates itself where its own
// cgroup is writable (root, or a delegated subtree; never anywhere else),
// else a systemd user scope where a user manager answers on the session
// bus, else the process tree. Every step down says why.
func PlanContainment(want Containment) *Plan {
	var why []string
	if want == ContainmentProcessTree {
		return &Plan{kind: ContainmentProcessTree, reason: "process-tree asked for (--containment)"}
	}
	if want == ContainmentJob {
		why = append(why, "job objects are Windows-only")
		want = ""
	}
	if want == "" || want == ContainmentCgroup {
		own, err := cgroup.Own()
		if err == nil {
			err = cgroup.Writable(own)
		}
		if err == nil {
			return &Plan{kind: ContainmentCgroup, parent: own, reason: strings.Join(why, "; ")}
		}
		why = append(why, "cgroup v2 not writable here: "+err.Error())
	}
	if want == "" || want == ContainmentSystemdScope {
		m, err := cgroup.ConnectUserManager()
		if err == nil {
			return &Plan{kind: ContainmentSystemdScope, scopes: m, reason: strings.Join(why, "; ")}
		}
		why = append(why, "no systemd user scope: "+err.Error())
	}
	return &Plan{kind: ContainmentProcessTree, reason: strings.Join(why, "; ")}
}
