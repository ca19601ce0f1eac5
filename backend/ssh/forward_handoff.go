package ssh

import (
	"context"
	"fmt"
	"net"
	"os"

	"hermes-desktop/backend/transport"
)

// A forward's listening socket handed from an update's predecessor to its
// successor (transport.Relay.File, transport.Serve), so that the local
// port answers throughout.

// ForwardListener is a copy of the listening socket of the Forward of
// local, for a successor.
func (h *Host) ForwardListener(local int) (*os.File, error) {
	h.mu.Lock()
	r, ok := h.relays[local]
	h.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("ssh: no forward from %d", local)
	}
	return r.File()
}

// StopAccepting stops the Forward of local from accepting (its open
// connections finish): the successor holding its socket takes the next.
func (h *Host) StopAccepting(local int) {
	h.mu.Lock()
	r, ok := h.relays[local]
	h.mu.Unlock()
	if ok {
		r.StopAccepting()
	}
}

// ForwardOn is Forward on ln, a listener a predecessor handed over; its
// port is the forward's local port. It does not wait for the session:
// connections accepted before it is up wait for it.
func (h *Host) ForwardOn(_ context.Context, ln net.Listener, to transport.Target) error {
	if err := to.Check(); err != nil {
		return err
	}
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("ssh: forward on %v: not a TCP listener", ln.Addr())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return transport.ErrClosed
	}
	if _, ok := h.relays[addr.Port]; ok {
		return fmt.Errorf("ssh: forward %d -> %v: the port is forwarded already", addr.Port, to)
	}
	h.relays[addr.Port] = transport.Serve(ln, func(ctx context.Context) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		return h.Dial(ctx, to)
	})
	return nil
}
