package remote

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/ssh"
	"hermes-desktop/backend/transport"
	"hermes-desktop/backend/wsl"
	"hermes-desktop/watchdog/remotewd"
)

// Config is how the app reaches remote hosts.
type Config struct {
	// SSHConfig is the ssh config file (ssh -F); "" means ssh's own.
	SSHConfig string
	// DisconnectGrace is how long a remote tree outlives a silent
	// connection; zero means settings.DefaultDisconnectGrace.
	DisconnectGrace time.Duration
	// SSH is the ssh client; "" means ssh from PATH.
	SSH string
	// Netns is remotewd.NetnsOff to run every remote backend in its
	// host's network; "" or remotewd.NetnsAuto isolates each where its
	// host allows it (and its transport can reach a unix socket there).
	Netns string
}

// Hosts are the remote hosts of the app's session, one Machine (one
// connection, one authentication) per destination, made on first use and
// closed together.
type Hosts struct {
	cfg     Config
	self    string
	version string

	mu        sync.Mutex
	hosts     map[string]*Machine
	sshConfig string // the ssh config file new connections read (SetSSHConfig)
	closed    bool
	retired   []*Machine // replaced by a newer ssh config; closed with the rest
	// cores are located once, on first use.
	cores    *remotecore.Cores
	coresErr error
	located  bool
}

// NewHosts makes the registry; self runs each session's watchdog shim,
// version names the cores to install.
func NewHosts(cfg Config, self, version string) *Hosts {
	return &Hosts{cfg: cfg, self: self, version: version, hosts: map[string]*Machine{}, sshConfig: cfg.SSHConfig}
}

// SetSelf changes the executable the sessions' shims run from, for the
// connections made from now on (the launcher learns its core after it
// made the registry).
func (hs *Hosts) SetSelf(self string) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.self = self
}

// DisconnectGrace is the grace runs on these hosts get.
func (hs *Hosts) DisconnectGrace() time.Duration { return hs.cfg.DisconnectGrace }

// ErrClosed means the app is shutting down: no new connection.
var ErrClosed = errors.New("remote: the app is shutting down")

// Get returns the Machine of dest, making it on first use.
func (hs *Hosts) Get(dest string) (*Machine, error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.closed {
		return nil, ErrClosed
	}
	if h, ok := hs.hosts[dest]; ok {
		if h.sshConfig == hs.sshConfig || !idle(h.t.Status().State) {
			return h, nil // a live connection keeps the file it was made with
		}
		// Never connected, or given up on: the next attempt reads the file
		// saved since (an alias that exists only there, say).
		delete(hs.hosts, dest)
		hs.retired = append(hs.retired, h)
	}
	if !hs.located {
		hs.cores, hs.coresErr = remotecore.LocateCores(hs.version)
		hs.located = true
	}
	h, err := hs.machine(dest)
	if err != nil {
		return nil, fmt.Errorf("remote: %s: %w", dest, err)
	}
	h.sshConfig = hs.sshConfig
	hs.hosts[dest] = h
	return h, nil
}

// WSLPrefix starts a host that is a WSL distribution of this Windows
// machine ("wsl:Ubuntu"; "wsl:" alone for the default one), reached through
// wsl.exe instead of ssh.
const WSLPrefix = "wsl:"

// machine is dest's Machine: reached through wsl.exe for a WSL host
// (Install puts the core there), else over one ssh session whose bootstrap
// installs it. Called with mu held.
func (hs *Hosts) machine(dest string) (*Machine, error) {
	if distro, ok := strings.CutPrefix(dest, WSLPrefix); ok {
		t, err := wsl.New(wsl.Options{Distro: distro})
		if err != nil {
			return nil, err
		}
		return NewMachine(dest, t, hs.cores, hs.coresErr), nil
	}
	boot := remotecore.NewBoot(hs.cores)
	t, err := ssh.New(ssh.Options{
		Destination: dest, Boot: boot, ConfigFile: hs.sshConfig, Self: hs.self, SSH: hs.cfg.SSH,
		ServerAliveInterval: aliveInterval(hs.grace()),
	})
	if err != nil {
		return nil, err
	}
	h := NewMachine(dest, t, hs.cores, hs.coresErr)
	h.boot, h.netns = boot, hs.cfg.Netns
	if h.netns == "" {
		h.netns = remotewd.NetnsAuto
	}
	return h, nil
}

// grace is the disconnect grace of runs on these hosts.
func (hs *Hosts) grace() time.Duration {
	if hs.cfg.DisconnectGrace > 0 {
		return hs.cfg.DisconnectGrace
	}
	return settings.DefaultDisconnectGrace
}

// aliveInterval is the keepalive interval of a session (ssh's
// ServerAliveInterval and the multiplexer's) for a disconnect grace: a
// sixth of it, within 1..15 s, so that a dead connection is seen well
// within the grace.
func aliveInterval(grace time.Duration) time.Duration {
	return min(max(grace/6, time.Second), 15*time.Second)
}

// SetSSHConfig is the ssh config file saved in the settings: connections
// made from now on read it (a connection already up keeps its own).
func (hs *Hosts) SetSSHConfig(path string) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.sshConfig = path
}

// idle reports whether a connection in state st carries nothing: it never
// came up, or its attempts have ended.
func idle(st transport.State) bool { return st == transport.Idle || st == transport.Failed }

// Close closes every host's connection (after the backends on them are
// stopped: their channels go through it).
func (hs *Hosts) Close() {
	hs.mu.Lock()
	hs.closed = true
	hosts := append(slices.Collect(maps.Values(hs.hosts)), hs.retired...)
	hs.hosts, hs.retired = map[string]*Machine{}, nil
	hs.mu.Unlock()
	for _, h := range hosts {
		_ = h.t.Close()
	}
}
