package wsl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"hermes-desktop/backend/transport"
)

// dialTimeout bounds the connect to the distribution's port per accepted
// connection.
const dialTimeout = 10 * time.Second

// ErrSocketTarget means a unix socket target: WSL reaches the
// distribution's loopback ports (localhostForwarding), not its sockets.
var ErrSocketTarget = errors.New("wsl: a unix socket in the distribution cannot be reached from Windows; only a port can")

// Forward listens on 127.0.0.1:local and relays each connection to
// 127.0.0.1:to.Port, which WSL 2 forwards into the distribution. The relay
// lives until Unforward or Close. A local port already taken is an error
// (the caller tries another); a Socket target is refused.
func (t *Transport) Forward(ctx context.Context, local int, to transport.Target) error {
	if err := checkTarget(to); err != nil {
		return fmt.Errorf("wsl: forward %d -> %v: %w", local, to, err)
	}
	if local == to.Port {
		// Both ends would be the same socket here: a relay onto itself.
		return fmt.Errorf("wsl: forward %d -> %v: the local port is the remote one", local, to)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := t.forwards.Listen(local, func(ctx context.Context) (net.Conn, error) { return dialPort(ctx, to.Port) }); err != nil {
		return fmt.Errorf("wsl: forward %d -> %v: %w", local, to, err)
	}
	return nil
}

// Unforward ends a Forward: its listener and every connection through it.
func (t *Transport) Unforward(_ context.Context, local int) error {
	if err := t.forwards.Remove(local); err != nil {
		return fmt.Errorf("wsl: %w", err)
	}
	return nil
}

// Dial opens one connection to the distribution's 127.0.0.1:to.Port.
func (t *Transport) Dial(ctx context.Context, to transport.Target) (net.Conn, error) {
	if err := checkTarget(to); err != nil {
		return nil, fmt.Errorf("wsl: dial %v: %w", to, err)
	}
	if err := t.ready(); err != nil {
		return nil, err
	}
	return dialPort(ctx, to.Port)
}

func checkTarget(to transport.Target) error {
	if to.Socket != "" {
		return ErrSocketTarget
	}
	return to.Check()
}

func dialPort(ctx context.Context, port int) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
}
