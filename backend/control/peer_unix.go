//go:build linux || darwin

package control

import (
	"fmt"
	"net"
	"os"
)

// checkPeer refuses connections from other users. The socket's 0600 mode
// already does; this also covers root-owned proxies and a loosened mode.
func checkPeer(conn net.Conn) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("control: peer credentials: %T is not a Unix socket", conn)
	}
	raw, err := uc.SyscallConn()
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

// checkServer has nothing to check on Unix: the socket's path is inside
// the state dir, so whoever bound it could write there, which only its
// owner (or root) can.
func checkServer(net.Conn) error { return nil }

// checkPeerBeforeRead: a Unix socket tells its peer from the start, so
// nothing of a stranger's is read.
func checkPeerBeforeRead(conn net.Conn) error { return checkPeer(conn) }

// checkPeerAfterRead has nothing left to check on Unix.
func checkPeerAfterRead(net.Conn) error { return nil }
