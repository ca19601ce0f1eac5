package selfupdate

import (
	"context"
	"sync"
	"sync/atomic"

	"hermes-desktop/backend/update"
)

// feedLine is the feed in use and the one-at-a-time lane through it: a
// check, a download or an apply holds sem throughout, and another feed
// (saved in the settings meanwhile) is put in use only between them, so
// none of them mixes the answers of two feeds.
type feedLine struct {
	// client asks the feed in use. It is replaced (use) only with sem
	// held.
	client atomic.Pointer[update.Client]
	base   update.Config // the client's configuration but the feed
	sem    chan struct{} // held through a check, download or apply: one at a time
	// changed tells the scheduler that another feed is in use.
	changed chan struct{}
	// onUse forgets what the previous feed offered and says which feed
	// is in use; announce publishes that (not set while New builds).
	onUse    func(feed string, c *update.Client)
	announce func()

	mu      sync.Mutex // guards current and next
	current string     // the feed in use, as configured
	next    *string    // a feed saved while sem was held; put in use when it is released
}

// newFeedLine puts feed in use, before the line is shared.
func newFeedLine(base update.Config, feed string, onUse func(string, *update.Client)) *feedLine {
	f := &feedLine{base: base, sem: make(chan struct{}, 1), changed: make(chan struct{}, 1), onUse: onUse, announce: func() {}}
	f.use(feed)
	return f
}

// load is the client of the feed in use.
func (f *feedLine) load() *update.Client { return f.client.Load() }

// acquire takes the semaphore: one check, download or apply at a time.
func (f *feedLine) acquire(ctx context.Context) error {
	select {
	case f.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tryAcquire takes the semaphore if it is free.
func (f *feedLine) tryAcquire() bool {
	select {
	case f.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

// release frees the semaphore. A feed saved while it was held is put in
// use first (switchNext), so a check, download or apply never mixes the
// answers of two feeds.
func (f *feedLine) release() {
	for {
		<-f.sem
		f.mu.Lock()
		pending := f.next != nil
		f.mu.Unlock()
		// Taken by someone else meanwhile: their release switches.
		if !pending || !f.tryAcquire() {
			return
		}
		f.switchNext()
	}
}

// change puts feed in use: now if no check, download or apply runs, else
// when it ends (release), so that it finishes with the feed it started
// with.
func (f *feedLine) change(feed string) {
	f.mu.Lock()
	f.next = &feed
	f.mu.Unlock()
	if f.tryAcquire() {
		f.switchNext()
		f.release()
	}
}

// switchNext puts the saved feed in use, if it differs from the one in
// use: saving another setting must not forget a ready update. Call with
// the semaphore held.
func (f *feedLine) switchNext() {
	f.mu.Lock()
	next := f.next
	f.next = nil
	changed := next != nil && *next != f.current
	f.mu.Unlock()
	if !changed {
		return
	}
	f.use(*next)
	select { // the scheduler plans its first check of the new feed
	case f.changed <- struct{}{}:
	default: // one is pending already: it reads the feed in use then
	}
	f.announce()
}

// use makes feed the one in use: a new client, and (onUse) a status that
// says "off" (and why) or "not checked yet". Call with the semaphore
// held, or before the line is shared.
func (f *feedLine) use(feed string) {
	cfg := f.base
	cfg.FeedURL = feed
	c := update.New(cfg)
	f.client.Store(c)
	f.mu.Lock()
	f.current = feed
	f.mu.Unlock()
	f.onUse(feed, c)
}
