package backend

// planContainment has one answer on macOS: no kernel container for a
// process tree exists there (no cgroups, no job objects), so the watchdog
// shim's mechanism (its process group and tree walk, before orphans reach
// launchd) and the ownership records are all there is.
func planContainment(Containment) *containPlan {
	return &containPlan{kind: ContainmentProcessTree, reason: "macOS has no kernel container for a process tree"}
}
