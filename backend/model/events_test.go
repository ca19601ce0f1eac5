package model

import "testing"

func TestBrokerNeverBlocks(t *testing.T) {
	var b Broker
	s := b.Subscribe(1)
	b.Publish(Event{Kind: EventStatus})
	b.Publish(Event{Kind: EventStatus}) // dropped, not blocking
	if !s.Lagged() || s.Lagged() {
		t.Errorf("Lagged should be reported once")
	}
	s.Close()
	s.Close()
	b.Publish(Event{Kind: EventStatus})
}
