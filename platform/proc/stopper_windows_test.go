package proc

import (
	"testing"
	"time"

	"hermes-desktop/internal/sleeper"
)

// Nothing can ask an arbitrary Windows process to stop, so waiting out the
// grace would only leave it running: Terminate's Stopper kills it at the
// first Escalate, however long the grace.
func TestTerminateWithoutGracefulStopKillsAtOnce(t *testing.T) {
	h := sleeper.Start(t, 1)[0]
	id := mustLookup(t, h.PID())
	now := time.Now()
	stop, err := Terminate(id, time.Hour, now)
	if err != nil {
		t.Fatalf("Terminate: got %v, want a Stopper", err)
	}
	if h.Gone(100 * time.Millisecond) {
		t.Fatal("gone before Escalate: Terminate itself must not kill")
	}
	stop.Escalate(now.Add(time.Millisecond))
	if !h.Gone(memberWait) {
		t.Fatalf("alive %v after Escalate with an hour's grace: got a wait, want a kill", memberWait)
	}
}
