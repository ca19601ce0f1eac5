package backend

import (
	"strings"
	"syscall"
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

func TestExitStatusString(t *testing.T) {
	cases := map[ExitStatus]string{
		{Code: 0}:                           "code 0",
		{Code: 75}:                          "port is in use",
		{Code: 127}:                         "not found",
		{Code: -1, Signal: syscall.SIGKILL}: "killed by signal 9",
		{Code: 137}:                         "killed by signal 9",
	}
	for st, want := range cases {
		if got := st.String(); !strings.Contains(got, want) {
			t.Errorf("%+v: got %q, want it to contain %q", st, got, want)
		}
	}
}

func TestStateMachine(t *testing.T) {
	if err := checkTransition(StateStopped, StateReady); err == nil {
		t.Errorf("stopped -> ready must be refused")
	}
	if err := checkTransition(StateReady, StateRestarting); err != nil {
		t.Error(err)
	}
}
