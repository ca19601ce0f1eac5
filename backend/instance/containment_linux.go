package instance

import (
	"strings"

	"hermes-desktop/backend/model"
	"hermes-desktop/platform/cgroup"
)

// PlanContainment picks the strongest containment Linux offers here, or
// the one asked for: a cgroup the launcher creates itself where its own
// cgroup is writable (root, or a delegated subtree; never anywhere else),
// else a systemd user scope where a user manager answers on the session
// bus, else the process tree. Every step down says why.
func PlanContainment(want model.Containment) *Plan {
	var why []string
	if want == model.ContainmentProcessTree {
		return &Plan{kind: model.ContainmentProcessTree, reason: "process-tree asked for (--containment)"}
	}
	if want == model.ContainmentJob {
		why = append(why, "job objects are Windows-only")
		want = ""
	}
	if want == "" || want == model.ContainmentCgroup {
		own, err := cgroup.Own()
		if err == nil {
			err = cgroup.Writable(own)
		}
		if err == nil {
			return &Plan{kind: model.ContainmentCgroup, parent: own, reason: strings.Join(why, "; ")}
		}
		why = append(why, "cgroup v2 not writable here: "+err.Error())
	}
	if want == "" || want == model.ContainmentSystemdScope {
		m, err := cgroup.ConnectUserManager()
		if err == nil {
			return &Plan{kind: model.ContainmentSystemdScope, scopes: m, reason: strings.Join(why, "; ")}
		}
		why = append(why, "no systemd user scope: "+err.Error())
	}
	return &Plan{kind: model.ContainmentProcessTree, reason: strings.Join(why, "; ")}
}
