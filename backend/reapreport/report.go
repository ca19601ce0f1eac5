// Package reapreport is the boot reap's report: what the reaper (package
// reap) decided on each process and leftover cgroup, with a reason word
// per rule, and what it did. It is a leaf apart from the reaper that fills
// it, so that whatever only reads a report does not take in the engine
// that kills processes. Its JSON is the wire's, status.json's and the
// page's at once: a renamed field or word breaks all three.
package reapreport

import (
	"fmt"
	"time"
)

// Action is what the reaper did, or would do, with a candidate.
type Action string

// Actions.
const (
	ActionReaped    Action = "reaped"
	ActionSpared    Action = "spared"
	ActionWouldReap Action = "would-reap" // dry run
	ActionFailed    Action = "failed"     // meant to reap, but it survived SIGKILL or could not be signalled
	// ActionCleaned: a remote reap found nothing of a dead session running
	// and removed its files.
	ActionCleaned Action = "cleaned"
)

// Reason words, one per rule.
const (
	ReasonOwned            = "owned"
	ReasonOwnerDead        = "owner-dead"
	ReasonOrphanNoRecord   = "orphan-no-record"
	ReasonTooYoung         = "too-young"
	ReasonNotOrphan        = "not-orphan"
	ReasonSSHLock          = "ssh-lock"
	ReasonSSHTokenFile     = "ssh-token-file"
	ReasonGatewayPIDFile   = "gateway-pidfile"
	ReasonServiceManaged   = "service-managed"
	ReasonExcludedEnv      = "excluded-env"
	ReasonOtherUser        = "other-user"
	ReasonAncestor         = "ancestor"
	ReasonFixedPort        = "fixed-port"
	ReasonNotLoopback      = "not-loopback"
	ReasonIdentityMismatch = "identity-mismatch"
	ReasonFailClosed       = "fail-closed"
)

// Decision is the reaper's verdict on one process.
type Decision struct {
	PID     int      `json:"pid"`
	Action  Action   `json:"action"`
	Reason  string   `json:"reason"`
	Detail  string   `json:"detail"`
	Cmdline []string `json:"cmdline"`
}

// CgroupDecision is the reaper's verdict on one leftover backend cgroup,
// with a reason word of the process rules (owned, owner-dead, fail-closed,
// ancestor).
type CgroupDecision struct {
	// Cgroup is the cgroup's path in the v2 hierarchy.
	Cgroup string `json:"cgroup"`
	Action Action `json:"action"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	// Members is how many processes were in it when it was judged.
	Members int `json:"members"`
	// Processes are those members, each with its command line (empty when
	// it could not be read): what a reap of the cgroup kills.
	Processes []CgroupMember `json:"processes"`
}

// CgroupMember is one process found in a backend cgroup when it was judged.
type CgroupMember struct {
	PID     int      `json:"pid"`
	Cmdline []string `json:"cmdline"`
}

// Report is what a reap found and did.
type Report struct {
	StartedAt time.Time  `json:"started_at"`
	DryRun    bool       `json:"dry_run"`
	Scanned   int        `json:"scanned"`
	ElapsedMS float64    `json:"elapsed_ms"`
	Decisions []Decision `json:"decisions"`
	// Cgroups are the decisions on leftover backend cgroups (Linux), made
	// before the processes are looked at: a reaped cgroup's members are
	// gone by then.
	Cgroups []CgroupDecision `json:"cgroups,omitempty"`
	// RecordsRemoved lists the nonces of records dropped (their processes
	// gone or their PIDs reused); SetAside the record files moved aside.
	RecordsRemoved []string `json:"records_removed,omitempty"`
	SetAside       []string `json:"set_aside,omitempty"`
	// Remote are the decisions of the remote reaps on other hosts (one
	// before each start there, not part of this reap): the latest per
	// session, merged in by whoever hands the report out.
	Remote []RemoteDecision `json:"remote,omitempty"`
}

// RemoteDecision is what the remote reap on a host did about one session
// of ours left there, and why.
type RemoteDecision struct {
	// Host is the ssh destination the reap ran on.
	Host string    `json:"host"`
	At   time.Time `json:"at"`
	// OwnershipID names the session; PID is the host's PID of the backend
	// its file names (0 when unknown).
	OwnershipID string `json:"ownership_id"`
	PID         int    `json:"pid"`
	// Action is ActionReaped (it was ended), ActionSpared or
	// ActionCleaned.
	Action Action `json:"action"`
	Reason string `json:"reason"`
}

// Count returns how many process decisions have action a.
func (r *Report) Count(a Action) int { return countAction(r.Decisions, a) }

// Summary says what a reap did in one line: "reaped 2, spared 3 (scanned
// 412 processes in 21.3 ms)".
func (r *Report) Summary() string {
	s := fmt.Sprintf("reaped %d, spared %d", r.Count(ActionReaped), r.Count(ActionSpared))
	if n := r.Count(ActionWouldReap); n > 0 {
		s += fmt.Sprintf(", would reap %d", n)
	}
	if n := r.Count(ActionFailed); n > 0 {
		s += fmt.Sprintf(", failed %d", n)
	}
	if len(r.Cgroups) > 0 {
		s += fmt.Sprintf("; cgroups: reaped %d, spared %d", countAction(r.Cgroups, ActionReaped), countAction(r.Cgroups, ActionSpared))
		if n := countAction(r.Cgroups, ActionWouldReap); n > 0 {
			s += fmt.Sprintf(", would reap %d", n)
		}
		if n := countAction(r.Cgroups, ActionFailed); n > 0 {
			s += fmt.Sprintf(", failed %d", n)
		}
	}
	return s + fmt.Sprintf(" (scanned %d processes in %.1f ms)", r.Scanned, r.ElapsedMS)
}

func countAction[D Decision | CgroupDecision](ds []D, a Action) int {
	n := 0
	for _, d := range ds {
		if action(d) == a {
			n++
		}
	}
	return n
}

func action[D Decision | CgroupDecision](d D) Action {
	switch d := any(d).(type) {
	case Decision:
		return d.Action
	case CgroupDecision:
		return d.Action
	}
	return ""
}
