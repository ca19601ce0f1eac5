package instance

// PlanContainment has one answer on macOS: no kernel container for a
// process tree exists there (no cgroups, no job objects), so the watchdog
// shim's mechanism (its process group and tree walk, before orphans reach
// launchd) and the ownership records are all there is.
func PlanContainment(Containment) *Plan {
	return &Plan{kind: ContainmentProcessTree, reason: "macOS has no kernel container for a process tree"}
}
