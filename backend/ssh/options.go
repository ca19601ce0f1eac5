package ssh

import (
	"context"
	"io"
	"time"

	"hermes-desktop/backend/transport"
)

// Options configure a Host. Every zero value has a documented default,
// filled in by withDefaults.
type Options struct {
	// Destination is anything ssh(1) takes: [user@]host, ssh://user@host:port,
	// or an alias of the ssh config. Required.
	Destination string
	// Boot is what the session runs on the host before our multiplexer
	// serves there. Required.
	Boot Bootstrap
	// ConfigFile is the ssh config file, passed as `ssh -F`. Zero: ssh's
	// own choice (~/.ssh/config of the passwd entry, not of $HOME).
	ConfigFile string
	// KnownHostsFile overrides UserKnownHostsFile. Zero: as configured.
	KnownHostsFile string
	// IdentityFile is added with -i. Zero: as configured (agent, config).
	IdentityFile string
	// Self is the hermes-desktop executable, which runs the session
	// behind its watchdog shim so that the session dies with the app.
	// Required.
	Self string
	// SSH is the client binary. Zero: "ssh" from PATH (ssh.exe on Windows).
	SSH string
	// ConnectTimeout bounds one attempt, from spawn to the bootstrap's
	// first line (authenticated). Zero: 30 s.
	ConnectTimeout time.Duration
	// BootTimeout bounds the bootstrap after its first line, an upload of
	// the core included. Zero: 5 minutes.
	BootTimeout time.Duration
	// ServerAliveInterval is ssh's keepalive interval and our
	// multiplexer's (three missed answers end ssh; one the multiplexer).
	// Zero: 15 s.
	ServerAliveInterval time.Duration
	// MinBackoff is the wait after the first failed attempt; each next
	// wait doubles, up to MaxBackoff. Zero: 1 s and 60 s.
	MinBackoff, MaxBackoff time.Duration
	// MaxAttempts bounds the attempts of one Connect or reconnect before
	// the Host is Failed. Zero: 8.
	MaxAttempts int
	// OnState, when set, is called with every new status, in order, from
	// the goroutine that changed it; it must not call back into the Host.
	OnState func(transport.Status)
}

// Bootstrap is what a session runs first on the host (backend/remotecore's
// Boot): a command line that ends by exec'ing the remote core's mux server,
// and the exchange with it over the session's stdout (from) and stdin (to)
// up to that exec. The Host then reads the core's muxwire.Banner.
type Bootstrap interface {
	Command() []string
	Run(ctx context.Context, from io.Reader, to io.Writer) error
}

func (o Options) withDefaults() Options {
	if o.SSH == "" {
		o.SSH = "ssh"
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 30 * time.Second
	}
	if o.BootTimeout <= 0 {
		o.BootTimeout = 5 * time.Minute
	}
	if o.ServerAliveInterval <= 0 {
		o.ServerAliveInterval = 15 * time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 60 * time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	return o
}

// backoff is the wait after failed attempt n (1-based).
func (o Options) backoff(n int) time.Duration {
	d := o.MinBackoff
	for i := 1; i < n && d < o.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, o.MaxBackoff)
}
