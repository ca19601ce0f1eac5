package remote

import (
	"time"

	"hermes-desktop/backend/reapreport"
	"hermes-desktop/watchdog/remotewd"
)

// reapDecisions are a remote reap's decisions on host as the Boot reap
// page shows them, each with the host named.
func reapDecisions(host string, at time.Time, ds []remotewd.RemoteReapDecision) []reapreport.RemoteDecision {
	out := make([]reapreport.RemoteDecision, 0, len(ds))
	for _, d := range ds {
		action := reapreport.Action(d.Action)
		switch d.Action {
		case "killed":
			action = reapreport.ActionReaped
		case "cleaned":
			action = reapreport.ActionCleaned
		case "spared":
			action = reapreport.ActionSpared
		}
		out = append(out, reapreport.RemoteDecision{Host: host, At: at, OwnershipID: d.OwnershipID, PID: d.PID, Action: action, Reason: d.Reason})
	}
	return out
}
