package proc

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

// A receiver that falls behind finds one tick waiting, not a backlog.
func TestTickerDropsTicksNobodyTook(t *testing.T) {
	tk := NewTicker(5 * time.Millisecond)
	defer tk.Stop()
	time.Sleep(100 * time.Millisecond)
	if n := len(tk.C); n > 1 {
		t.Errorf("got %d ticks waiting, want at most 1", n)
	}
}
