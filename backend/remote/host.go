package remote

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/ssh"
	"hermes-desktop/watchdog/remotewd"
)

// Transport is the connection to one host: backend/ssh's Host, or WSL's.
type Transport interface {
	// Run runs a short command with a timeout (killed on the remote when
	// it ends).
	Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error)
	// Start runs a long command whose stdin and stdout are ours.
	Start(ctx context.Context, argv ...string) (*ssh.Channel, error)
	// Forward and Unforward add and cancel a forward from 127.0.0.1:local
	// here to 127.0.0.1:remote there.
	Forward(ctx context.Context, local, remote int) error
	Unforward(ctx context.Context, local, remote int) error
	// Connect returns once commands can run, or with why they cannot.
	Connect(ctx context.Context) error
	// Status is the connection's state as a person reads it.
	Status() ssh.Status
}

// Machine is one remote machine for the app's session: its transport and
// the core installed there, installed at most once at a time and again
// only after a failure.
type Machine struct {
	// Destination is the ssh destination, as the settings name it.
	Destination string
	t           Transport
	cores       *remotecore.Cores
	coresErr    error

	closer    interface{ Close() error } // the connection, closed by Hosts.Close
	sshConfig string                     // the ssh config file it was made with
	// netns is what its backends' watchdogs are asked (--netns): see
	// isolation.
	netns string

	mu        sync.Mutex // serializes Install
	installed *remotecore.Installed
}

// NewMachine is the machine dest reached through t, running cores (coresErr says
// why there are none: each start then fails with it).
func NewMachine(dest string, t Transport, cores *remotecore.Cores, coresErr error) *Machine {
	return &Machine{Destination: dest, t: t, cores: cores, coresErr: coresErr}
}

// isolation is what a backend's remote watchdog is asked (--netns): off
// when the app's setting says so, or when the transport cannot forward to
// a unix socket there (the only way to an isolated backend: today's
// ControlMaster transport forwards to a port only).
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
	in, err := remotecore.Install(ctx, h.t, h.cores, remotecore.Options{})
	if err != nil {
		return remotecore.Installed{}, err
	}
	h.installed = &in
	return in, nil
}
