package ssh

import (
	"strconv"
	"strings"
	"time"
)

// readyLine is what the master's LocalCommand prints once authenticated:
// ssh runs LocalCommand after it listens on the control socket, so the line
// means the socket is ready (ssh.c, ssh_session2).
const readyLine = "hermes-ssh-ready"

// configArgs are the options every invocation shares: the user's config
// file and the overrides of Options. ssh takes the first value it sees for
// an option, so these win over the config file.
func configArgs(o Options) []string {
	var a []string
	if o.ConfigFile != "" {
		a = append(a, "-F", o.ConfigFile)
	}
	if o.KnownHostsFile != "" {
		a = append(a, "-o", "UserKnownHostsFile="+quoteOption(o.KnownHostsFile))
	}
	if o.IdentityFile != "" {
		a = append(a, "-i", o.IdentityFile)
	}
	return a
}

// commonArgs adds what no invocation may do otherwise: prompt (BatchMode),
// accept an unknown key (strict), or use another control socket.
func (h *Host) commonArgs() []string {
	a := append(configArgs(h.opts), "-o", "BatchMode=yes", "-S", h.controlPath, "-o", "ControlPersist=no")
	if h.strictOverride {
		// The user's config says StrictHostKeyChecking=no; we never
		// connect a backend with that (README "Remote backends").
		a = append(a, "-o", "StrictHostKeyChecking=yes")
	}
	return a
}

// masterArgs start the one authenticated connection: no command (-N),
// foreground (no -f: it stays the shim's child), keepalives, and the ready line.
func (h *Host) masterArgs() []string {
	a := append(h.commonArgs(), "-M", "-N", "-T",
		"-o", "ConnectTimeout="+seconds(h.opts.ConnectTimeout),
		"-o", "ServerAliveInterval="+seconds(h.opts.ServerAliveInterval),
		"-o", "ServerAliveCountMax=3",
		"-o", "ExitOnForwardFailure=no",
		"-o", "PermitLocalCommand=yes",
		"-o", "LocalCommand=echo "+readyLine)
	return append(a, "--", h.opts.Destination)
}

// clientArgs run argv as a mux client of the master. ProxyCommand=false:
// if the master is gone, ssh would connect on its own (a second
// authentication); instead it fails at once.
func (h *Host) clientArgs(extra ...string) []string {
	a := append(h.commonArgs(), "-o", "ControlMaster=no", "-o", "ProxyCommand=false")
	return append(a, extra...)
}

// seconds is d in whole seconds, rounded up, at least 1 (ssh and
// timeout(1) take seconds).
func seconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(d.Seconds()+0.999)))
}

// quoteOption quotes a path for an -o value, which ssh splits on spaces.
func quoteOption(s string) string {
	if strings.ContainsAny(s, " \t") {
		return `"` + s + `"`
	}
	return s
}
