package reapreport

import (
	"encoding/json"
	"testing"
	"time"
)

// sample has every field set and every action once, in processes and
// cgroups alike.
func sample() *Report {
	return &Report{StartedAt: time.Date(2026, 12, 4, 17, 0, 0, 5, time.UTC), DryRun: true, Scanned: 412, ElapsedMS: 21.3,
		Decisions: []Decision{
			{PID: 5, Action: ActionReaped, Reason: ReasonOwnerDead, Detail: "it was a backend", Cmdline: []string{"hermes", "serve"}},
			{PID: 6, Action: ActionSpared, Reason: ReasonFailClosed},
			{PID: 7, Action: ActionWouldReap, Reason: ReasonOrphanNoRecord},
			{PID: 8, Action: ActionFailed, Reason: ReasonOwnerDead}},
		Cgroups: []CgroupDecision{
			{Cgroup: "/a/hermes-backend-n1", Action: ActionReaped, Reason: ReasonOwnerDead, Detail: "killed", Members: 2,
				Processes: []CgroupMember{{PID: 1, Cmdline: []string{"sleep"}}, {PID: 2}}},
			{Cgroup: "/a/hermes-backend-n2", Action: ActionSpared, Reason: ReasonOwned}},
		RecordsRemoved: []string{"n1"}, SetAside: []string{"n9.json"}}
}

// The report's JSON is what `reap --json`, status.json, the control
// channel and the page read: these bytes are its contract.
func TestReportJSON(t *testing.T) {
	for _, tc := range []struct {
		name   string
		report *Report
		want   string
	}{
		{"full", sample(), `{"started_at":"2026-12-04T17:00:00.000000005Z","dry_run":true,"scanned":412,"elapsed_ms":21.3,` +
			`"decisions":[{"pid":5,"action":"reaped","reason":"owner-dead","detail":"it was a backend","cmdline":["hermes","serve"]},` +
			`{"pid":6,"action":"spared","reason":"fail-closed","detail":"","cmdline":null},` +
			`{"pid":7,"action":"would-reap","reason":"orphan-no-record","detail":"","cmdline":null},` +
			`{"pid":8,"action":"failed","reason":"owner-dead","detail":"","cmdline":null}],` +
			`"cgroups":[{"cgroup":"/a/hermes-backend-n1","action":"reaped","reason":"owner-dead","detail":"killed","members":2,` +
			`"processes":[{"pid":1,"cmdline":["sleep"]},{"pid":2,"cmdline":null}]},` +
			`{"cgroup":"/a/hermes-backend-n2","action":"spared","reason":"owned","detail":"","members":0,"processes":null}],` +
			`"records_removed":["n1"],"set_aside":["n9.json"]}`},
		{"empty", &Report{Decisions: []Decision{}},
			`{"started_at":"0001-01-01T00:00:00Z","dry_run":false,"scanned":0,"elapsed_ms":0,"decisions":[]}`},
	} {
		got, err := json.Marshal(tc.report)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.name, got, err, tc.want)
		}
	}
}

func TestCountAndSummary(t *testing.T) {
	r := sample()
	for a, want := range map[Action]int{ActionReaped: 1, ActionSpared: 1, ActionWouldReap: 1, ActionFailed: 1, "other": 0} {
		if got := r.Count(a); got != want {
			t.Errorf("Count(%q): got %d, want %d", a, got, want)
		}
	}
	const want = "reaped 1, spared 1, would reap 1, failed 1; cgroups: reaped 1, spared 1 (scanned 412 processes in 21.3 ms)"
	if got := r.Summary(); got != want {
		t.Errorf("Summary: got %q, want %q", got, want)
	}
	quiet := &Report{Decisions: []Decision{{Action: ActionSpared}}, Scanned: 3, ElapsedMS: 1}
	if got, want := quiet.Summary(), "reaped 0, spared 1 (scanned 3 processes in 1.0 ms)"; got != want {
		t.Errorf("Summary without cgroups or failures: got %q, want %q", got, want)
	}
}
