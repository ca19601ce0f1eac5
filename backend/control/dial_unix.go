//go:build linux || darwin

package control

import (
	"context"
	"errors"
	"net"
	"syscall"
)

// dial connects to the control socket at path.
func dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}

// notListening tells dial's errors that mean no instance: no socket
// (ENOENT), or a socket nobody accepts on any more (ECONNREFUSED, a crashed
// instance's).
func notListening(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}
