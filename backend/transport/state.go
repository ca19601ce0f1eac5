package transport

import (
	"fmt"
	"math"
	"time"
)

// State is where a Transport's connection stands.
type State int

// The states of a connection. The zero value is Idle.
//
//	Idle -> Connecting -> Connected -> Reconnecting -> Connected
//	Connecting | Reconnecting -> Failed (a permanent error or attempts exhausted)
//	Failed -> Connecting (the next Connect)
//	any -> Closed (Close; final)
const (
	Idle State = iota
	Connecting
	Connected
	Reconnecting
	Failed
	Closed
)

var stateNames = [...]string{"not connected", "connecting", "connected", "reconnecting", "failed", "closed"}

// String is the state as a person reads it.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is a connection's state as a person reads it.
type Status struct {
	State State
	// Attempt is the number of the attempt in flight or next (1-based);
	// zero outside Connecting and Reconnecting.
	Attempt int
	// Next is when the next attempt starts; zero while one is in flight.
	Next time.Time
	// Err is why the last attempt failed (Failed, Reconnecting).
	Err error
}

// String renders the status, e.g. "reconnecting (attempt 3, next in 8 s)".
func (s Status) String() string {
	switch s.State {
	case Reconnecting:
		if s.Next.IsZero() {
			return fmt.Sprintf("reconnecting (attempt %d)", s.Attempt)
		}
		secs := int(math.Ceil(time.Until(s.Next).Seconds()))
		return fmt.Sprintf("reconnecting (attempt %d, next in %d s)", s.Attempt, max(secs, 0))
	case Failed:
		if s.Err != nil {
			return "failed: " + s.Err.Error()
		}
	}
	return s.State.String()
}
