package waitfor

import (
	"testing"
	"time"
)

func TestTryHoldsOnceTheConditionDoes(t *testing.T) {
	n := 0
	if !Try(time.Second, func() bool { n++; return n == 3 }) {
		t.Fatal("Try: got false, want true once the condition holds")
	}
	if n != 3 {
		t.Errorf("polls: got %d, want 3 (none after it held)", n)
	}
}

func TestTryGivesUpAtTheDeadline(t *testing.T) {
	start := time.Now()
	if Try(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("Try: got true, want false")
	}
	if d := time.Since(start); d < 30*time.Millisecond || d > time.Second {
		t.Errorf("Try took %v, want about 30ms", d)
	}
}
