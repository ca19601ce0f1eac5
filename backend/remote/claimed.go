package remote

import (
	"context"
	"fmt"
	"net"
	"time"

	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/transport"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/contract/logs"
	"hermes-desktop/watchdog/remotewd"
)

// An update's successor takes a predecessor's remote backend over by a
// claim over its own connection (handoff.State.Remote): the same backend,
// the same remote port, the same local port.

// Claim runs spec as the backend h describes, already running on the
// host: it returns at once, and the run claims it in its own goroutine,
// then beats as a run it started does. A claim that fails ends the run
// (its supervisor starts the backend anew).
func (r Runner) Claim(spec *runspec.Spec, h run.RemoteHandover) (run.Process, error) {
	m, err := r.Machine()
	if err != nil {
		return nil, err
	}
	if h.Host != m.Destination || !remotewd.ValidSecret(h.Secret) || !hermes.ValidOwnershipID(h.OwnershipID) {
		return nil, fmt.Errorf("remote: a handed-over backend on %q cannot be claimed on %s", h.Host, m.Destination)
	}
	x, err := newInstance(spec, m, r)
	if err != nil {
		return nil, err
	}
	x.ids.nonce, x.ids.ownershipID, x.ids.spawnNonce = h.Nonce, h.OwnershipID, h.SpawnNonce
	x.ids.sendToken, x.ids.token = h.Token, ""
	if spec.DesktopOwned() {
		x.ids.token = h.Token
	}
	x.said.hello.Shim = h.Shim
	x.said.backend.Backend, x.said.backend.ClaimSocket = h.Backend, h.ClaimSocket
	if h.Socket != "" { // isolated: its port is reached through this socket only
		x.said.backend.Isolation, x.said.backend.Socket = remotewd.IsolationNetns, h.Socket
	}
	x.localPort, x.remotePort = h.LocalPort, h.RemotePort
	x.released.open()
	close(x.backendKnown)
	go x.claimMain(h)
	return x, nil
}

// claimMain is a claimed run's life: connect, claim with the one-time
// secret (retried while the session comes up, within the handover's
// window), give the watchdog this run's own session secret, serve the
// local port again, then beat until the lifeline ends.
func (r *Instance) claimMain(h run.RemoteHandover) {
	defer close(r.exited)
	ctx, cancel := untilStopped(r.stopping.done(), r.exited)
	defer cancel()
	r.log.Add("launcher", "claiming the backend handed over on "+r.host.Destination)
	served := serveHandedListener(ctx, r.host, r.log, h)
	wctx, wcancel := context.WithTimeout(ctx, claimWindow)
	got, err := claimer{r.host, r.log}.until(wctx, h.ClaimSocket, h.Secret, h.Backend)
	wcancel()
	if err != nil {
		r.setFailure(fmt.Errorf("claim the handed-over backend: %w", err))
		return
	}
	l := r.attach(got, nil)
	r.line.send(remotewd.TagSecret + " " + r.ids.secret)
	if !served {
		if err := forwardAgain(ctx, r.host, h.LocalPort, handedTarget(h)); err != nil {
			r.mu.Lock()
			r.localPort = 0
			r.mu.Unlock()
			r.log.Add("launcher", err.Error())
		}
	}
	r.finish(r.follow(ctx, l))
}

// serveHandedListener serves the forward on the listening socket the
// predecessor handed over, at once: the connections made meanwhile wait
// in its backlog, and the backend answers them whoever holds it there.
// false when there is none (or it cannot be served): forwardAgain then.
func serveHandedListener(ctx context.Context, m *Machine, log *logs.Log, h run.RemoteHandover) bool {
	if h.Listener == nil {
		return false
	}
	defer h.Listener.Close()
	p, ok := m.t.(listenerPasser)
	if !ok || h.RemotePort == 0 {
		return false
	}
	ln, err := net.FileListener(h.Listener)
	if err == nil {
		err = p.ForwardOn(ctx, ln, handedTarget(h))
		if err != nil {
			ln.Close()
		}
	}
	if err != nil {
		log.Add("launcher", "serve the handed-over local port: "+err.Error())
		return false
	}
	return true
}

// handedTarget is where a handed-over backend's forward goes: its socket
// when it is isolated, else its port.
func handedTarget(h run.RemoteHandover) transport.Target {
	if h.Socket != "" {
		return transport.Target{Socket: h.Socket}
	}
	return transport.Target{Port: h.RemotePort}
}

// forwardAgain serves local here to the target there again: the
// predecessor holds local until it exits, so a port in use is tried again
// for a while.
func forwardAgain(ctx context.Context, m *Machine, local int, to transport.Target) error {
	if local == 0 || (to.Port == 0 && to.Socket == "") {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, forwardAgainFor)
	defer cancel()
	for {
		err := m.t.Forward(ctx, local, to)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("remote: serve local port %d again for %s: %w", local, m.Destination, err)
		case <-time.After(claimRetry / 4):
		}
	}
}

// claimWindow bounds a successor's claim: the predecessor's handover
// window (handoff.RemoteWindow), past which nothing waits there.
const claimWindow = 30 * time.Second

// forwardAgainFor bounds forwardAgain: past it, the predecessor is not
// letting go of the port.
const forwardAgainFor = 30 * time.Second
