package remote

import (
	"context"
	"fmt"
	"sync"
	"time"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/transport"
	"hermes-desktop/watchdog/remotewd"
)

// Machine is one remote machine for the app's session: its transport and
// the core installed there, installed at most once at a time and again
// only after a failure.
type Machine struct {
	// Destination is the ssh destination, as the settings name it.
	Destination string
	t           transport.Transport
	cores       *remotecore.Cores
	coresErr    error
	// boot is the bootstrap of an ssh host's session, which installs the
	// core as it connects; nil for a WSL host (Install does it).
	boot *remotecore.Boot

	sshConfig string // the ssh config file it was made with
	// netns is what its backends' watchdogs are asked (--netns): see
	// isolation.
	netns string

	mu        sync.Mutex // serializes Install
	installed *remotecore.Installed
	pruned    bool // the prune after an upload ran
}

// NewMachine is the machine dest reached through t, running cores (coresErr says
// why there are none: each start then fails with it).
func NewMachine(dest string, t transport.Transport, cores *remotecore.Cores, coresErr error) *Machine {
	return &Machine{Destination: dest, t: t, cores: cores, coresErr: coresErr}
}

// isolation is what a backend's remote watchdog is asked (--netns): off
// when the app's setting says so, or when the transport cannot forward to
// a unix socket there (the only way to an isolated backend): a WSL host,
// whose relay reaches the distribution's ports only (netns "").
func (h *Machine) isolation() string {
	if h.netns == "" {
		return remotewd.NetnsOff
	}
	return h.netns
}

// Forget drops what Install found, so the next Install checks the host
// again (and uploads again if need be).
func (h *Machine) Forget() {
	h.mu.Lock()
	h.installed = nil
	h.mu.Unlock()
}

// Install connects and makes sure the core is in place on the host.
func (h *Machine) Install(ctx context.Context) (remotecore.Installed, error) {
	if h.cores == nil {
		return remotecore.Installed{}, fmt.Errorf("remote: %s: %w", h.Destination, h.coresErr)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.installed != nil {
		return *h.installed, nil
	}
	// Connected first, so that a connection that cannot be made is said as
	// such, not as the first command it failed.
	if err := h.t.Connect(ctx); err != nil {
		return remotecore.Installed{}, err
	}
	if h.boot != nil {
		return h.booted(ctx)
	}
	in, err := remotecore.Install(ctx, h.t, h.cores, remotecore.Options{})
	if err != nil {
		return remotecore.Installed{}, err
	}
	h.installed = &in
	return in, nil
}

// booted is the core the ssh session's bootstrap runs; after an upload,
// older versions' cores beyond the newest few go (a prune that fails costs
// only disk space). Called with mu held.
func (h *Machine) booted(ctx context.Context) (remotecore.Installed, error) {
	in, ok := h.boot.Installed()
	if !ok {
		return remotecore.Installed{}, fmt.Errorf("remote: %s: connected, but no core booted", h.Destination)
	}
	if in.Uploaded && !h.pruned {
		h.pruned = true
		_, _ = h.t.Run(ctx, pruneTimeout, nil, remotecore.PruneArgv(h.cores.Version)...)
	}
	return in, nil
}

// pruneTimeout bounds the prune of old cores.
const pruneTimeout = 20 * time.Second
