package reap

import (
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"

	"hermes-desktop/backend/corebin"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/watchdog"
)

// Shape is what a command line says about a backend: which subcommand it
// runs and where it listens. The boot reaper uses it to pick candidates; the
// launcher uses it to know which host to probe.
type Shape struct {
	// Subcommand is "serve", "dashboard", "webapp" or "watchdog"; "" when
	// the command line is none of these.
	Subcommand string
	Host       string // value of --host; "" when absent
	Port       int    // value of --port; meaningful when PortSet
	PortSet    bool
	// Wrapped is the shape of the command a watchdog shim runs (after
	// "--"); nil for anything else.
	Wrapped *Shape
}

var serveSubcommands = map[string]bool{hermes.VerbServe: true, hermes.VerbDashboard: true, hermes.VerbWebapp: true}

// ParseShape reads a command line the way Hermes' argparse would: the first
// serve-like word is the subcommand, and the last --host/--port (in either
// "--flag value" or "--flag=value" form) wins. It never fails: a line it
// cannot read has an empty Subcommand.
func ParseShape(argv []string) Shape {
	var s Shape
	if len(argv) >= 2 && argv[1] == watchdog.Subcommand && isSelf(argv[0]) {
		s.Subcommand = watchdog.Subcommand
		for i, a := range argv {
			if a == "--" {
				w := ParseShape(argv[i+1:])
				s.Wrapped = &w
				break
			}
		}
		return s
	}
	sub := -1
	for i := 1; i < len(argv); i++ {
		if serveSubcommands[argv[i]] {
			sub = i
			s.Subcommand = argv[i]
			break
		}
	}
	if sub < 0 {
		return s
	}
	for i := sub + 1; i < len(argv); i++ {
		name, value, inline := strings.Cut(argv[i], "=")
		if name != hermes.FlagHost && name != hermes.FlagPort {
			continue
		}
		if !inline {
			if i+1 >= len(argv) {
				break
			}
			i++
			value = argv[i]
		}
		if name == hermes.FlagHost {
			s.Host = value
			continue
		}
		if n, err := strconv.Atoi(value); err == nil && n >= 0 && n <= 65535 {
			s.Port, s.PortSet = n, true
		} else {
			s.Port, s.PortSet = -1, true // present but unreadable: not ephemeral
		}
	}
	return s
}

// carriesSSHSessionToken reports whether argv (past argv[0]) has
// hermes.FlagSSHSessionTokenFile, Hermes' own proof that an SSH session
// owns the process, lock file or not, as "--ssh-session-token-file PATH" or
// "--ssh-session-token-file=PATH", anywhere: also after a watchdog shim's
// "--", so the shim of such a process is spared with it.
func carriesSSHSessionToken(argv []string) bool {
	for i := 1; i < len(argv); i++ {
		if argv[i] == hermes.FlagSSHSessionTokenFile || strings.HasPrefix(argv[i], hermes.FlagSSHSessionTokenFile+"=") {
			return true
		}
	}
	return false
}

// isSelf reports whether argv0 names this app's executable, or the core a
// desktop build starts its shims from (backend/corebin).
func isSelf(argv0 string) bool {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	return base == "hermes-desktop" || corebin.IsCoreFile(base)
}

// Ephemeral reports whether the command asks for an OS-chosen port.
func (s Shape) Ephemeral() bool { return s.PortSet && s.Port == 0 }

// Loopback reports whether --host names a loopback address.
func (s Shape) Loopback() bool { return hermes.IsLoopbackHost(s.Host) }

// IsLoopbackHost is hermes.IsLoopbackHost, the rule App.OpenURL applies
// before it opens a page.
func IsLoopbackHost(host string) bool { return hermes.IsLoopbackHost(host) }

// ProbeHost is the address to reach a backend that was told to bind host:
// its loopback address, defaulting to hermes.LoopbackIP.
func ProbeHost(host string) string {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip, err := netip.ParseAddr(h); err == nil && ip.IsLoopback() {
		return ip.String()
	}
	return hermes.LoopbackIP
}
