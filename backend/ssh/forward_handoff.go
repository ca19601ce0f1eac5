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
	r, ok := h.forwards.Get(local)
	if !ok {
		return nil, fmt.Errorf("ssh: no forward from %d", local)
	}
	return r.File()
}

// StopAccepting stops the Forward of local from accepting (its open
// connections finish): the successor holding its socket takes the next.
func (h *Host) StopAccepting(local int) {
	if r, ok := h.forwards.Get(local); ok {
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
	if err := h.forwards.Serve(ln, h.dialer(to)); err != nil {
		return fmt.Errorf("ssh: forward on %v -> %v: %w", ln.Addr(), to, err)
	}
	return nil
}
