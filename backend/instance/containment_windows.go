package instance

import "hermes-desktop/backend/model"

// PlanContainment has one answer on Windows, and it needs nothing more:
// every backend tree is born inside kill-on-close job objects (the
// launcher's, the backend's own and the shim's), which no descendant can
// leave (only the launcher's own job allows breakaway, for a handoff's
// successor) and which Windows closes, killing every member, when the
// process holding them dies, however it dies.
func PlanContainment(model.Containment) *Plan {
	return &Plan{kind: model.ContainmentJob}
}
