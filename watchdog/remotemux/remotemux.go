// Package remotemux is the remote core's mux server (DESIGN "Remote
// backends (SSH)"): run as the hidden subcommand `mux` at the end of the
// bootstrap, it prints muxwire.Banner and serves a yamux session over the
// ssh session's stdin and stdout. Each stream is one muxwire Request: a
// command (OpExec) in a process group of its own, or a byte pipe (OpDial)
// to the remote's 127.0.0.1:port or to a unix socket under
// ~/.hermes-desktop. It never exits before every child it started has
// been collected.
//
// Why yamux (hashicorp/yamux v0.1.2): it is what hashicorp/go-plugin runs
// over one pipe, a few small files with no dependencies, it has keepalive
// pings (a session gone quiet is seen without TCP's help) and flow control
// per stream (a forward that nobody reads does not stall the commands).
package remotemux

import (
	"errors"
	"time"
)

// Subcommand is the core's hidden subcommand that runs MuxMain; the
// bootstrap ends with `exec CORE mux`.
const Subcommand = "mux"

// AliveInterval is the server's keepalive: the upper clamp of the app's
// alive interval (grace/6 clamped to 1..15 s). The app pings more often
// for short graces; the server's pings only need to end a session whose
// peer is gone, which the remote watchdog's own heartbeat covers sooner.
const AliveInterval = 15 * time.Second

// KillGrace is how long a command's process group has between SIGTERM
// (FrameKill, its timeout, the end of a timed command's stream) and
// SIGKILL.
const KillGrace = 2 * time.Second

// ErrUnsupported is MuxMain's answer on Windows: the remote core runs on
// Linux and macOS hosts only; the Windows file keeps the app building.
var ErrUnsupported = errors.New("remotemux: the mux server is not supported on windows")
