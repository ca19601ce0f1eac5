package backend

import (
	"testing"
	"time"

	"hermes-desktop/backend/reapreport"
)

// The remote reaps' decisions ride on every report the launcher hands out
// (the Boot reap page reads them there), each session of each host once:
// the latest decision on it.
func TestReapHistoryCarriesRemoteDecisions(t *testing.T) {
	var h reapHistory
	boot := &reapreport.Report{Decisions: []reapreport.Decision{}}
	h.setBoot(boot)
	h.last = boot
	if b, l := h.reports(); b != boot || l != boot || b.Remote != nil {
		t.Fatalf("without remote decisions: got %p %p, want the boot report as it is", b, l)
	}
	now := time.Now()
	h.addRemote([]reapreport.RemoteDecision{
		{Host: "me@box", At: now, OwnershipID: "a", PID: 10, Action: reapreport.ActionReaped, Reason: "gone"},
		{Host: "me@box", At: now, OwnershipID: "b", Action: reapreport.ActionSpared, Reason: "alive"},
	})
	h.addRemote([]reapreport.RemoteDecision{{Host: "me@box", At: now.Add(time.Second), OwnershipID: "b", Action: reapreport.ActionSpared, Reason: "alive again"}})
	h.addRemote([]reapreport.RemoteDecision{{Host: "other", At: now, OwnershipID: "b", Action: reapreport.ActionCleaned, Reason: "files"}})
	b, l := h.reports()
	if b != l || boot.Remote != nil {
		t.Errorf("got boot %p last %p, want one report, the kept one unchanged", b, l)
	}
	if len(b.Remote) != 3 || b.Remote[0].OwnershipID != "a" || b.Remote[1].Reason != "alive again" || b.Remote[2].Host != "other" {
		t.Errorf("remote decisions: got %+v, want a on me@box, b on me@box (its latest), b on other", b.Remote)
	}
	scan := &reapreport.Report{DryRun: true}
	if got := h.attach(scan); len(got.Remote) != 3 || scan.Remote != nil {
		t.Errorf("a scan's report: got %+v", got.Remote)
	}
	for i := range 2 * maxRemoteDecisions {
		h.addRemote([]reapreport.RemoteDecision{{Host: "h", OwnershipID: string(rune('A' + i))}})
	}
	if len(h.remote) != maxRemoteDecisions {
		t.Errorf("kept %d remote decisions, want at most %d", len(h.remote), maxRemoteDecisions)
	}
}
