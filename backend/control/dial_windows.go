package control

import (
	"context"
	"errors"
	"net"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// dial connects to the control pipe name; while all its instances are
// busy, go-winio tries again every 10 ms until ctx ends. The client lets
// the server identify it (SECURITY_IDENTIFICATION: enough for checkPeer to
// read its user, not for the server to act as it).
func dial(ctx context.Context, name string) (net.Conn, error) {
	return winio.DialPipeAccessImpLevel(ctx, name, windows.GENERIC_READ|windows.GENERIC_WRITE, winio.PipeImpLevelIdentification)
}

// notListening tells dial's errors that mean no instance: a pipe vanishes
// with its last instance, so a dead or stopped instance leaves no name
// behind (ERROR_FILE_NOT_FOUND).
func notListening(err error) bool { return errors.Is(err, windows.ERROR_FILE_NOT_FOUND) }
