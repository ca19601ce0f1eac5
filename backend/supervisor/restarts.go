package supervisor

import (
	"fmt"
	"time"

	"hermes-desktop/platform/human"
)

// Policy is when a crashed backend is restarted. The zero Policy restarts
// nothing: the first crash fails the backend.
type Policy struct {
	// Max is how many crashes within Window are restarted before the
	// backend is failed; it also bounds the start timeouts in a row.
	Max int
	// Window is how far back crashes are counted.
	Window time.Duration
	// Backoff is the wait before the first automatic restart, doubled for
	// each further crash within Window; 0 means defaultBackoff.
	Backoff time.Duration
}

// defaultBackoff is the first restart's delay when the policy sets none.
const defaultBackoff = 250 * time.Millisecond

// restarts is the crash-loop breaker: the crashes and start timeouts the
// policy counts, and the timer of the restart it scheduled. Owned by the
// Supervisor's goroutine.
type restarts struct {
	policy  Policy
	crashes []time.Time
	// startTimeouts counts the starts in a row that timed out before the
	// backend was ready: the crash window forgets the crashes a long start
	// timeout spaces out (60 s apart against a 2 min window), this does
	// not. Reset by a ready backend and by a Start or Restart request.
	startTimeouts int
	timer         *time.Timer // the restart scheduled; nil for none
}

// forget starts counting afresh (a person asked for a start).
func (r *restarts) forget() { r.crashes, r.startTimeouts = nil, 0 }

// timedOut counts a start that did not become ready; it returns why to
// give up when there were too many in a row ("" to restart).
func (r *restarts) timedOut(err error) string {
	r.startTimeouts++
	if r.startTimeouts > r.policy.Max {
		return fmt.Sprintf("%s; it did not become ready in %d starts in a row, giving up", err, r.startTimeouts)
	}
	return ""
}

// crashed counts a crash at now: it returns why to give up when the
// window holds too many ("" to restart), and otherwise the crashes within
// the window, this one included, to schedule with.
func (r *restarts) crashed(reason string, now time.Time) (giveUp string, recent []time.Time) {
	for _, t := range r.crashes {
		if now.Sub(t) < r.policy.Window {
			recent = append(recent, t)
		}
	}
	if len(recent) >= r.policy.Max {
		r.crashes = recent
		return fmt.Sprintf("%s; restarted %d times within %s, giving up", reason, len(recent), human.Duration(r.policy.Window)), nil
	}
	return "", append(recent, now)
}

// schedule keeps the crashes and sets the timer of the next restart: the
// backoff, doubled for each crash before this one.
func (r *restarts) schedule(crashes []time.Time) {
	r.crashes = crashes
	r.timer = time.NewTimer(r.policy.Backoff << (len(crashes) - 1))
}

// cancel stops the restart scheduled, if any.
func (r *restarts) cancel() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
}
