//go:build !linux

package sampling

import "time"

// osTicker is a time.Ticker: only Linux has a timer the runtime's poller
// can wait on.
type osTicker struct{ t *time.Ticker }

func startTicker(d time.Duration) (<-chan time.Time, *osTicker) {
	t := time.NewTicker(d)
	return t.C, &osTicker{t: t}
}

func (t *osTicker) reset(d time.Duration) { t.t.Reset(d) }

func (t *osTicker) stop() { t.t.Stop() }
