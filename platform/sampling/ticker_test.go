package sampling

import (
	"testing"
	"time"
)

func TestTickerTicksUntilStopped(t *testing.T) {
	tk := NewTicker(10 * time.Millisecond)
	for i := 0; i < 3; i++ {
		select {
		case <-tk.C:
		case <-time.After(5 * time.Second):
			t.Fatalf("tick %d did not come within 5 s of a 10 ms ticker", i+1)
		}
	}
	tk.Stop()
	select { // one tick may have been sent before Stop
	case <-tk.C:
	default:
	}
	select {
	case <-tk.C:
		t.Fatal("a tick came after Stop returned")
	case <-time.After(100 * time.Millisecond):
	}
	tk.Stop() // again: a no-op
}

func TestTickerResetChangesThePeriod(t *testing.T) {
	tk := NewTicker(time.Hour)
	defer tk.Stop()
	tk.Reset(10 * time.Millisecond)
	select {
	case <-tk.C:
	case <-time.After(5 * time.Second):
		t.Fatal("no tick within 5 s of a Reset to 10 ms")
	}
	tk.Reset(time.Hour)
	select { // drain one that was on its way
	case <-tk.C:
	default:
	}
	select {
	case <-tk.C:
		t.Fatal("a tick came right after a Reset to an hour")
	case <-time.After(100 * time.Millisecond):
	}
}

// A receiver that falls behind finds one tick waiting, not a backlog: a
// ticker that missed many periods does not then send them one by one. The
// bound follows from the time the test took, so a slow machine only
// loosens it.
func TestTickerDropsTicksNobodyTook(t *testing.T) {
	const period = 10 * time.Millisecond
	tk := NewTicker(period)
	defer tk.Stop()
	time.Sleep(50 * period) // about 50 ticks nobody takes
	start := time.Now()
	end := time.After(5 * period)
	got := 0
	for taking := true; taking; {
		select {
		case <-tk.C:
			got++
		case <-end:
			taking = false
		}
	}
	// The one waiting, one the ticker may be sending, and those that
	// fell due while the test took them.
	if limit := 2 + int(time.Since(start)/period); got > limit {
		t.Errorf("got %d ticks in %v after falling behind by about 50, want at most %d", got, time.Since(start).Round(time.Millisecond), limit)
	}
}
