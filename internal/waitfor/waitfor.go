// Package waitfor is the one way tests wait for a condition: poll it with a
// short back-off until it holds or a deadline passes. Tests use it where no
// blocking primitive exists (another process's state, a file another
// process writes, a status read over the control socket).
package waitfor

import (
	"testing"
	"time"
)

// Back-off between polls: the first comes soon, so a fast condition costs
// little wall time; later ones space out, so a slow one costs little CPU
// (an e2e poll may start a whole CLI process).
const (
	firstPoll = 5 * time.Millisecond
	maxPoll   = 100 * time.Millisecond
)

// Until polls cond until it holds, and fails the test (Fatalf, so call it
// from the test's goroutine) if timeout passes first, naming what it waited
// for.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Try(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Try polls cond until it holds or timeout passes, and reports whether it
// held: for a test that says itself what a timeout means (a detailed
// failure, a skip, or a check that follows anyway).
func Try(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	pause := firstPoll
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, maxPoll)
	}
}
