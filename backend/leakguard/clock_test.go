package leakguard

import (
	"testing"
	"time"
)

func TestClockRunsOnlyWhenAsked(t *testing.T) {
	c := NewClock(10 * time.Millisecond)
	if c.C() != nil {
		t.Fatal("a new clock ticks before Run")
	}
	c.Run(true)
	select {
	case <-c.C():
	case <-time.After(5 * time.Second):
		t.Fatal("no tick within 5 s of a running 10 ms clock")
	}
	c.Run(false)
	if c.C() != nil {
		t.Error("the clock still has a channel after Run(false)")
	}
	c.Stop() // again: a no-op
}

func TestClockFirstPhaseAfterReady(t *testing.T) {
	c := NewClock(time.Hour)
	defer c.Stop()
	c.Run(true)
	t0 := time.Now()
	c.Ready(t0)
	if want := t0.Add(EarlyFor); !c.earlyUntil.Equal(want) {
		t.Fatalf("first phase until %v, want %v", c.earlyUntil, want)
	}
	select { // EarlyEvery, not the hour
	case <-c.C():
	case <-time.After(5 * EarlyEvery):
		t.Fatal("no tick in the first phase")
	}
	c.Ticked(t0.Add(EarlyFor / 2))
	if c.earlyUntil.IsZero() {
		t.Error("the first phase ended half-way")
	}
	c.Ticked(t0.Add(EarlyFor + time.Millisecond))
	if !c.earlyUntil.IsZero() {
		t.Error("the first phase did not end after EarlyFor")
	}
	select { // back to the hour: drain a tick on its way, then none
	case <-c.C():
	default:
	}
	select {
	case <-c.C():
		t.Error("a tick came after the clock went back to an hour")
	case <-time.After(2 * EarlyEvery):
	}
}

// An interval shorter than EarlyEvery is kept in the first phase: the
// first phase samples more often, never less.
func TestClockFirstPhaseKeepsAShorterInterval(t *testing.T) {
	c := NewClock(10 * time.Millisecond)
	defer c.Stop()
	c.Ready(time.Now())
	for i := 0; i < 3; i++ {
		select {
		case <-c.C():
		case <-time.After(EarlyEvery / 2):
			t.Fatalf("tick %d of a 10 ms clock took over %v in the first phase", i+1, EarlyEvery/2)
		}
	}
}

func TestClockOffNeverTicks(t *testing.T) {
	c := NewClock(-1)
	c.Run(true)
	c.Ready(time.Now())
	if !c.Off() || c.C() != nil {
		t.Error("a clock for a negative interval runs")
	}
}
