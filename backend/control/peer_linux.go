package control

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// checkPeer refuses connections from other users. The socket's 0600 mode
// already does; this also covers root-owned proxies and a loosened mode.
func checkPeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("control: peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return fmt.Errorf("control: peer credentials: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("control: peer credentials: %w", cerr)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("control: peer uid %d is not ours (%d)", cred.Uid, os.Geteuid())
	}
	return nil
}
