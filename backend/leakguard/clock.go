package leakguard

import (
	"time"

	"hermes-desktop/platform/sampling"
)

// How the first seconds after ready are sampled: Hermes starts its MCP
// servers about a second after binding, with an environment that drops
// the launcher's nonce, and the record must know them before a crash
// could strand them.
const (
	EarlyFor   = 30 * time.Second
	EarlyEvery = time.Second
)

// Clock paces one backend's samples: every interval, and at least every
// EarlyEvery for the first EarlyFor after the backend is ready. It ticks only while
// the supervisor runs it (while there is an instance to sample), so a
// stopped or failed backend costs no wakeups, and it ticks through
// sampling.Ticker, which at rest wakes one thread per tick. It is owned by one
// goroutine; the zero interval (or a negative one) never ticks.
type Clock struct {
	every      time.Duration
	t          *sampling.Ticker // nil while not running
	earlyUntil time.Time        // zero outside the first phase
}

// NewClock returns a stopped clock for the sampling interval every.
func NewClock(every time.Duration) *Clock { return &Clock{every: every} }

// Off reports whether sampling is turned off altogether.
func (c *Clock) Off() bool { return c.every <= 0 }

// C is the tick channel; nil (never ready) while the clock does not run.
func (c *Clock) C() <-chan time.Time {
	if c.t == nil {
		return nil
	}
	return c.t.C
}

// Run starts the clock at the usual interval when on and it is stopped,
// and stops it when not on.
func (c *Clock) Run(on bool) {
	switch {
	case !on:
		c.Stop()
	case c.t == nil && !c.Off():
		c.t, c.earlyUntil = sampling.NewTicker(c.every), time.Time{}
	}
}

// Ready starts the first phase: a tick every EarlyEvery (or every
// interval, when that is shorter) until EarlyFor after now. It runs the
// clock if it did not run.
func (c *Clock) Ready(now time.Time) {
	if c.Off() {
		return
	}
	early := min(EarlyEvery, c.every)
	if c.t == nil {
		c.t = sampling.NewTicker(early)
	} else {
		c.t.Reset(early)
	}
	c.earlyUntil = now.Add(EarlyFor)
}

// Ticked is told of each tick taken (at now); it ends the first phase once
// it is over.
func (c *Clock) Ticked(now time.Time) {
	if c.t != nil && !c.earlyUntil.IsZero() && now.After(c.earlyUntil) {
		c.t.Reset(c.every)
		c.earlyUntil = time.Time{}
	}
}

// Stop stops the clock; Run starts it again.
func (c *Clock) Stop() {
	if c.t != nil {
		c.t.Stop()
		c.t, c.earlyUntil = nil, time.Time{}
	}
}
