package remote

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"hermes-desktop/backend/run"
	"hermes-desktop/backend/transport"
	"hermes-desktop/watchdog/remotewd"
)

// connectedTransport is a Transport that is up and runs nothing.
type connectedTransport struct{}

func (connectedTransport) Run(context.Context, time.Duration, io.Reader, ...string) ([]byte, error) {
	return nil, nil
}
func (connectedTransport) Start(context.Context, ...string) (*transport.Channel, error) {
	return nil, nil
}
func (connectedTransport) Forward(context.Context, int, transport.Target) error { return nil }
func (connectedTransport) Unforward(context.Context, int) error                 { return nil }
func (connectedTransport) Dial(context.Context, transport.Target) (net.Conn, error) {
	return nil, errors.New("no dial")
}
func (connectedTransport) Connect(context.Context) error { return nil }
func (connectedTransport) Close() error                  { return nil }
func (connectedTransport) Status() transport.Status {
	return transport.Status{State: transport.Connected}
}

// The card says Connected only while pongs come within a beat and the
// round trip: with two beats and a second of margin it said Connected for
// seconds while the page did not answer (issue 31, item 8).
func TestConnectionGoesReconnectingAfterOneMissedBeat(t *testing.T) {
	run := func(silent time.Duration) run.Connection {
		r := &Instance{host: NewMachine("box", connectedTransport{}, nil, nil), beat: newHeartbeat(time.Second), grace: 30 * time.Second,
			ch: &transport.Channel{}, exited: make(chan struct{})}
		r.beat.latency = 2 * time.Millisecond
		r.beat.lastPong = time.Now().Add(-silent)
		ri := run.Connection{Latency: r.beat.latency}
		r.connection(&ri)
		return ri
	}
	if ri := run(900 * time.Millisecond); ri.State != "connected" {
		t.Errorf("a pong 0.9 s ago (beat 1 s): %s, want connected", ri.State)
	}
	ri := run(1700 * time.Millisecond)
	if ri.State != "reconnecting" || ri.Latency != 0 {
		t.Errorf("no pong for 1.7 s (beat 1 s): %s with latency %s, want reconnecting and no latency", ri.State, ri.Latency)
	}
}

// The first ping waits for the backend's start on the host: its round trip
// is not the link's latency; the next one's is.
func TestFirstPongGivesNoLatency(t *testing.T) {
	h := newHeartbeat(time.Second)
	h.sentAt[1] = time.Now().Add(-150 * time.Millisecond) // sent with the start
	h.pong("1")
	if h.latency != 0 {
		t.Errorf("after the first pong: latency %s, want none yet", h.latency)
	}
	h.sentAt[2] = time.Now().Add(-2 * time.Millisecond)
	h.pong("2")
	if h.latency < 2*time.Millisecond || h.latency > 100*time.Millisecond {
		t.Errorf("after the second pong: latency %s, want its own round trip (about 2 ms)", h.latency)
	}
}

// The connection says how the remote watchdog isolated the backend, for
// the card's "who can reach it".
func TestConnectionSaysTheIsolation(t *testing.T) {
	r := &Instance{host: NewMachine("box", connectedTransport{}, nil, nil), beat: newHeartbeat(time.Second), exited: make(chan struct{})}
	r.said.backend = remotewd.RemoteBackend{LockDir: "/x", Isolation: remotewd.IsolationNone, IsolationReason: "turned off"}
	if c := r.Connection(); c.Isolation != remotewd.IsolationNone || c.IsolationReason != "turned off" {
		t.Errorf("got isolation %q, %q; want none, turned off", c.Isolation, c.IsolationReason)
	}
}
