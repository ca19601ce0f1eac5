package ssh

import (
	"strconv"
	"strings"
	"time"

	"hermes-desktop/platform/cmdline"
)

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

// sessionArgs start the host's one session: no prompt (BatchMode), no
// connection sharing of ssh's own (ControlMaster, ControlPath: our
// multiplexer does that, on every OS), nothing of the user's config that
// would act on our session (agent or X11 forwarding, their forwards, a
// RemoteCommand that would replace ours, a TTY that would mangle our
// bytes, a LocalCommand), keepalives, and the bootstrap as the command.
func (h *Host) sessionArgs(command []string) []string {
	a := append(configArgs(h.opts), "-T",
		"-o", "BatchMode=yes",
		"-o", "ControlMaster=no",
		"-o", "ControlPath=none",
		"-o", "ForwardAgent=no",
		"-o", "ForwardX11=no",
		"-o", "ClearAllForwardings=yes",
		"-o", "RemoteCommand=none",
		"-o", "RequestTTY=no",
		"-o", "PermitLocalCommand=no",
		"-o", "ConnectTimeout="+seconds(h.opts.ConnectTimeout),
		"-o", "ServerAliveInterval="+seconds(h.opts.ServerAliveInterval),
		"-o", "ServerAliveCountMax=3")
	if h.strictOverride {
		// The user's config says StrictHostKeyChecking=no; we never
		// connect a backend with that (README "Remote backends").
		a = append(a, "-o", "StrictHostKeyChecking=yes")
	}
	return append(a, "--", h.opts.Destination, cmdline.JoinRemote(command))
}

// seconds is d in whole seconds, rounded up, at least 1 (ssh takes
// seconds).
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
