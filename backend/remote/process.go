package remote

import (
	"context"
	"errors"
	"fmt"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/transport"
	"hermes-desktop/watchdog/remotewd"
	"net"
	"strconv"
	"time"
)

// Release lets the remote watchdog start the backend.
func (r *Instance) Release() error {
	r.released.open()
	return nil
}

// BackendKnown is closed once the remote watchdog reported the backend.
func (r *Instance) BackendKnown() <-chan struct{} { return r.backendKnown }

// Token is the session token of a desktop-owned kind ("" for a dashboard).
func (r *Instance) Token() string { return r.ids.token }

// Exited is closed once the channel has ended: the remote tree is gone,
// or going (its lifeline is).
func (r *Instance) Exited() <-chan struct{} { return r.exited }

// Info is what the status shows of the run; its PIDs are the host's.
func (r *Instance) Info() run.Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := run.Info{
		PID: r.said.backend.Backend.PID, ShimPID: r.said.hello.Shim.PID, Nonce: r.ids.nonce, Argv: r.spec.Command,
		Containment: model.Containment(r.said.backend.Containment), Reason: r.said.backend.Reason, Cgroup: r.said.backend.Cgroup,
	}
	if len(r.said.backend.Argv) > 0 {
		in.Argv, in.Command = r.said.backend.Argv, r.said.backend.Argv // what runs there, as the remote watchdog resolved it
	}
	return in
}

// Connection is the connection to the host as it is now; safe to call
// from any goroutine.
func (r *Instance) Connection() run.Connection {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := run.Connection{
		Host: r.host.Destination, Platform: r.said.hello.Platform, Port: r.remotePort,
		Latency: r.beat.measured(), LockDir: r.said.backend.LockDir, Error: r.said.failure,
		Isolation: r.said.backend.Isolation, IsolationReason: r.said.backend.IsolationReason,
	}
	select {
	case <-r.exited: // the channel ended: nothing listens there for us any more
		c.Port, c.Latency = 0, 0
	default:
	}
	r.connection(&c)
	return c
}

// connection fills in the connection's state: the host's until the
// heartbeat has begun (a channel started, or a claim answered), then the
// heartbeat's. Called with mu held.
func (r *Instance) connection(c *run.Connection) {
	st := r.host.t.Status()
	c.State = st.State.String()
	if c.State == "reconnecting" || c.State == "connecting" {
		c.Attempt, c.NextAttempt = st.Attempt, st.Next
	}
	if st.Err != nil && c.Error == "" {
		c.Error = st.Err.Error()
	}
	select {
	case <-r.exited:
		return
	default:
	}
	r.beat.show(c, r.host.Destination, r.grace)
}

// AwaitReady waits for the backend's port in its output, forwards a local
// port to it, and checks its health through the forward; the port
// returned is the local end.
func (r *Instance) AwaitReady(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, r.spec.StartTimeout)
	defer cancel()
	var remote int
	select {
	case remote = <-r.ready.Found():
	case <-r.exited:
		return 0, run.ErrExitedEarly // Exit says why; the Supervisor reads it there
	case <-ctx.Done():
		r.mu.Lock()
		started := r.ch != nil
		r.mu.Unlock()
		if !started { // the backend never got there: say why, not that it was silent
			what := "reach " + r.host.Destination
			if st := r.host.t.Status(); st.Err != nil {
				what += " (" + st.State.String() + ": " + st.Err.Error() + ")"
			}
			return 0, run.TimeoutError(ctx, r.spec, what)
		}
		return 0, run.TimeoutError(ctx, r.spec, "announce a port on "+r.host.Destination+" (no line matched "+strconv.Quote(r.spec.ReadyRegex)+")")
	}
	local, err := r.forward(ctx, remote)
	if err != nil {
		return 0, err
	}
	r.line.send("port " + strconv.Itoa(remote))
	base := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(local))
	if err := run.AwaitHealth(ctx, base, r.spec, r.ids.token, r.exited); err != nil {
		return 0, err
	}
	return local, nil
}

// forward forwards a free local port to the backend, trying another port
// when one was taken meanwhile: to the remote port, or, when the backend
// runs in a network namespace of its own, to the socket its watchdog
// relays that port through (the port is not reachable from the host).
func (r *Instance) forward(ctx context.Context, remote int) (int, error) {
	r.mu.Lock()
	to := forwardTarget(r.said.backend, remote)
	r.mu.Unlock()
	var last error
	for range 3 {
		local, err := freePort()
		if err != nil {
			return 0, fmt.Errorf("remote: a local port for the forward: %w", err)
		}
		if last = r.host.t.Forward(ctx, local, to); last == nil {
			r.mu.Lock()
			r.localPort, r.remotePort = local, remote
			r.mu.Unlock()
			return local, nil
		}
	}
	return 0, fmt.Errorf("remote: forward a local port to %s on %s: %w", to, r.host.Destination, last)
}

// forwardTarget is where the forward to b's port goes: that port on the
// host's loopback, or, when b runs in a network namespace of its own, the
// socket its watchdog relays the port through.
func forwardTarget(b remotewd.RemoteBackend, port int) transport.Target {
	if b.Isolation == remotewd.IsolationNetns {
		return transport.Target{Socket: b.Socket}
	}
	return transport.Target{Port: port}
}

// Exit says how the run ended: the backend's status as the remote
// watchdog reported it, or unknown when the channel ended without its
// last word.
func (r *Instance) Exit() run.Exit {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.said.failure != "":
		return run.Exit{Status: run.ExitStatus{Code: -1, Unknown: true, Why: r.said.failure, Permanent: r.said.permanent}}
	case r.said.exit == nil:
		return run.Exit{Status: run.ExitStatus{Code: -1, Unknown: true,
			Why: "the connection to " + r.host.Destination + " ended without word from the backend's watchdog there"}}
	}
	st := run.ExitStatus{Code: r.said.exit.Code}
	if r.said.exit.Code > 128 && r.said.exit.Why != "the backend exited" {
		st.Why = fmt.Sprintf("on %s: %s (%s)", r.host.Destination, r.said.exit.Why, st)
	}
	return run.Exit{Status: st}
}

// Stop asks the remote watchdog to tear the tree down and waits for the
// channel to end (it is killed when that takes too long: EOF on the
// lifeline ends the tree there too). Idempotent.
func (r *Instance) Stop() error {
	r.stopping.open()
	select {
	case <-r.exited:
		return nil
	case <-time.After(r.spec.Grace + run.ShimKillMargin + run.ExitWait):
		return fmt.Errorf("backend %s: the channel to %s did not end", r.spec.Name, r.host.Destination)
	}
}

// errNoLastWord: the channel ended before the remote watchdog said the
// tree was gone.
var errNoLastWord = errors.New("remote: the channel ended before the remote watchdog confirmed the tree gone; it tears it down on its side")

// TreeGone is nil once the remote watchdog said the tree is gone, or when
// the backend never started there.
func (r *Instance) TreeGone() error {
	select {
	case <-r.exited:
	default:
		return errors.New("remote: still running")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.said.exit != nil || r.said.backend.Backend.PID == 0 {
		return nil
	}
	return errNoLastWord
}
