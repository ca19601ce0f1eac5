package supervisor

import (
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
)

// A remote run's status is published when what a person reads changes:
// the connection, the remote port; latency only by more than a tenth and a
// millisecond.
func TestSameRemote(t *testing.T) {
	base := model.RemoteStatus{Connection: "connected", Port: 8642, LatencyMS: 20}
	next := time.Now()
	for _, c := range []struct {
		name string
		edit func(*model.RemoteStatus)
		same bool
	}{
		{"unchanged", func(*model.RemoteStatus) {}, true},
		{"latency within a tenth", func(r *model.RemoteStatus) { r.LatencyMS = 21.5 }, true},
		{"latency by more than a tenth", func(r *model.RemoteStatus) { r.LatencyMS = 25 }, false},
		{"reconnecting", func(r *model.RemoteStatus) { r.Connection = "reconnecting" }, false},
		{"next attempt set", func(r *model.RemoteStatus) { r.NextAttempt = &next }, false},
		{"another port", func(r *model.RemoteStatus) { r.Port = 8643 }, false},
	} {
		b := base
		c.edit(&b)
		if got := sameRemote(base, b); got != c.same {
			t.Errorf("%s: sameRemote = %v, want %v", c.name, got, c.same)
		}
	}
}

// remoteStatus carries a run's connection into the status: the latency
// in milliseconds, a zero next attempt left out; a run without a
// connection shows none.
func TestRemoteStatus(t *testing.T) {
	if (&current{}).connection() != nil {
		t.Error("a run without a connection got a remote status")
	}
	got := remoteStatus(run.Connection{State: "connected", Latency: 1500 * time.Microsecond, Port: 9})
	if got.LatencyMS != 1.5 || got.NextAttempt != nil || got.Port != 9 || got.Connection != "connected" {
		t.Errorf("got %+v", got)
	}
	// Who on the host can reach it: the card says it from these.
	got = remoteStatus(run.Connection{State: "connected", Port: 9, Isolation: "none", IsolationReason: "turned off"})
	if got.Isolation != "none" || got.IsolationReason != "turned off" {
		t.Errorf("isolation: got %q, %q; want none, turned off", got.Isolation, got.IsolationReason)
	}
}
