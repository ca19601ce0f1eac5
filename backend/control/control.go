// Package control is the launcher's local control channel, carrying one
// JSON request and one JSON response per connection: on Unix a socket
// (<state>/control.sock, mode 0600, peer uid checked), on Windows a named
// pipe (\\.\pipe\hermes-desktop-<user SID>-<state dir hash>, a DACL for
// the current user only, owner and client user checked). The CLI (status,
// restart, stop, handoff) and a second launch (focus) use it to reach the
// running instance. The flow (server.go, client.go) is shared; listen_*,
// dial_* and peer_* hold what differs.
//
// It is the channel only: the kinds of error that survive it are
// contract/errkind's, and the operations, with the types of their arguments
// and results, are in control/protocol/protocol.go, which both the launcher
// and the CLI import.
package control

import (
	"encoding/json"
	"errors"
	"fmt"

	"hermes-desktop/contract/errkind"
)

// SocketName is the control socket's file name inside the state dir (Unix;
// Windows names a pipe instead, see SocketPath).
const SocketName = "control.sock"

// Request is one call on the control channel.
type Request struct {
	// Op names the operation (protocol.Op's Name).
	Op string `json:"op"`
	// Backend names the backend for per-backend operations; "" means all
	// (restart) or the default backend.
	Backend string `json:"backend,omitempty"`
	// Args carries operation-specific arguments.
	Args json.RawMessage `json:"args,omitempty"`
}

// DecodeArgs reads the request's arguments into v (none leaves v's zero
// value); bad arguments are ErrBadRequest.
func (r Request) DecodeArgs(v any) error {
	if len(r.Args) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Args, v); err != nil {
		return fmt.Errorf("%s: %w: %w", r.Op, errkind.ErrBadRequest, err)
	}
	return nil
}

// Response is the answer to a Request.
type Response struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Code is the error's kind (see Code); empty when OK.
	Code   errkind.Code    `json:"code,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// ErrNotRunning means no launcher instance listens on the state dir.
var ErrNotRunning = errors.New("control: no running instance")

// maxMessage bounds requests and responses; a status with process trees and
// log tails stays far below it.
const maxMessage = 8 << 20

// SocketPath returns the control channel's address for a state dir: the
// socket's path on Unix, the named pipe's name on Windows, or "" where it
// cannot be known (Windows, when the process token cannot be read).
func SocketPath(stateDir string) string {
	addr, _ := address(stateDir)
	return addr
}
