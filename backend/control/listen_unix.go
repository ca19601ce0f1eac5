//go:build linux || darwin

package control

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// address is the control socket's path: inside the state dir, whose
// permissions already keep other users out.
func address(stateDir string) (string, error) { return filepath.Join(stateDir, SocketName), nil }

// listen binds the socket at path, replacing a stale one (a dead
// instance's: Listen's caller holds the single-instance lock), and makes it
// 0600.
func listen(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("control: %s exists and is not a socket; move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("control: remove stale socket: %w", err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control: chmod %s: %w", path, err)
	}
	return ln, nil
}
