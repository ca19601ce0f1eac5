//go:build unix

package remotemux

import (
	"io"
	"time"

	"github.com/hashicorp/yamux"
)

// The server's settings, used by the Unix server only.

// dialTimeout bounds an OpDial's connect.
const dialTimeout = 10 * time.Second

// outputDelay bounds how long a collected command's output is still
// relayed while something it left behind holds its stdout or stderr open.
const outputDelay = 2 * time.Second

// yamuxConfig is the server's session config: keepalive on, a stream
// open timeout, yamux's own logs to stderr (the app keeps a tail of it).
func yamuxConfig(stderr io.Writer) *yamux.Config {
	c := yamux.DefaultConfig()
	c.EnableKeepAlive = true
	c.KeepAliveInterval = AliveInterval
	c.StreamOpenTimeout = 30 * time.Second
	c.LogOutput = stderr
	return c
}
