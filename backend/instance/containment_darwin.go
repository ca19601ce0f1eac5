package instance

import "hermes-desktop/backend/model"

// PlanContainment has one answer on macOS: no kernel container for a
// process tree exists there (no cgroups, no job objects), so the watchdog
// shim's mechanism (its process group and tree walk, before orphans reach
// launchd) and the ownership records are all there is.
func PlanContainment(model.Containment) *Plan {
	return &Plan{kind: model.ContainmentProcessTree, reason: "macOS has no kernel container for a process tree"}
}
