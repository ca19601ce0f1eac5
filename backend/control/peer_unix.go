//go:build linux || darwin

package control

import (
	"fmt"
	"net"
	"os"
)

// checkPeer refuses connections from other users. The socket's 0600 mode
// already does; this also covers root-owned proxies and a loosened mode.
func checkPeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("control: peer credentials: %w", err)
	}
	var uid int
	var uerr error
	if err := raw.Control(func(fd uintptr) { uid, uerr = peerUID(int(fd)) }); err != nil {
		return fmt.Errorf("control: peer credentials: %w", err)
	}
	if uerr != nil {
		return fmt.Errorf("control: peer credentials: %w", uerr)
	}
	if uid != os.Geteuid() {
		return fmt.Errorf("control: peer uid %d is not ours (%d)", uid, os.Geteuid())
	}
	return nil
}
