package model

import (
	"sync"

	"hermes-desktop/backend/reap"
	"hermes-desktop/contract/logs"
)

// EventKind names what an Event carries.
type EventKind string

// Event kinds, one topic per stream.
const (
	EventStatus EventKind = "status" // a backend changed state; Status is set
	EventLog    EventKind = "log"    // a backend printed a line; Log is set
	EventReap   EventKind = "reap"   // a reap finished; Reap is set
)

// Event is published to subscribers (the GUI) as things happen.
type Event struct {
	Kind    EventKind      `json:"kind"`
	Backend *BackendStatus `json:"backend,omitempty"`
	Log     *logs.Line     `json:"log,omitempty"`
	Reap    *reap.Report   `json:"reap,omitempty"`
}

// Broker fans events out to subscribers without ever blocking a publisher:
// a subscriber that falls behind loses events and is told so through its
// lagged flag, and then re-reads the full status.
type Broker struct {
	mu   sync.Mutex // guards subs
	subs map[*Subscription]struct{}
}

// Subscription receives events until Close.
type Subscription struct {
	C      chan Event
	b      *Broker
	mu     sync.Mutex // guards lagged
	lagged bool
}

// Subscribe returns a subscription whose channel holds up to buffer events
// before Publish drops them for it and marks it lagged.
func (b *Broker) Subscribe(buffer int) *Subscription {
	s := &Subscription{C: make(chan Event, buffer), b: b}
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[*Subscription]struct{}{}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Publish sends ev to every subscription without blocking: one whose
// channel is full misses it and is marked lagged.
func (b *Broker) Publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.C <- ev:
		default:
			s.mu.Lock()
			s.lagged = true
			s.mu.Unlock()
		}
	}
}

// Lagged reports (and clears) whether events were dropped since the last
// call.
func (s *Subscription) Lagged() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lagged
	s.lagged = false
	return l
}

// Close ends the subscription and closes C.
func (s *Subscription) Close() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if _, ok := s.b.subs[s]; ok {
		delete(s.b.subs, s)
		close(s.C)
	}
}
