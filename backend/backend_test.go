package backend

import (
	"testing"
)

func TestBrokerNeverBlocks(t *testing.T) {
	var b broker
	s := b.subscribe(1)
	b.publish(Event{Kind: EventStatus})
	b.publish(Event{Kind: EventStatus}) // dropped, not blocking
	if !s.Lagged() || s.Lagged() {
		t.Errorf("Lagged should be reported once")
	}
	s.Close()
	s.Close()
	b.publish(Event{Kind: EventStatus})
}

func TestStateMachine(t *testing.T) {
	if err := checkTransition(StateStopped, StateReady); err == nil {
		t.Errorf("stopped -> ready must be refused")
	}
	if err := checkTransition(StateReady, StateRestarting); err != nil {
		t.Error(err)
	}
}
