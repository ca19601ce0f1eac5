package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"hermes-desktop/backend/run"
	"hermes-desktop/watchdog/remotewd"
)

// Reclaim and handover: the remote watchdog keeps the tree when its
// lifeline ends after a silence (the session went quiet first: sleep, a
// Wi-Fi change, a stopped ssh) or after a handover, and waits for a claim
// on its claim socket (remotewd, "Claims"). Here the run claims it back
// over the host's next session, and an update's predecessor hands it over.

// claimTimeout bounds one claim's answer.
const claimTimeout = 10 * time.Second

// claimRetry is the pause between claims while the host's new session is
// not up yet.
const claimRetry = time.Second

// errNotOurs: the claim socket answered for another backend, or refused
// the secret, or nothing listens there (over a session that is up):
// nothing there is this run's any more.
var errNotOurs = errors.New("remote: the claim was refused")

// dialSocket opens a stream to a unix socket on the host through its
// transport, where the transport can.
func (h *Machine) dialSocket(ctx context.Context, path string) (net.Conn, error) {
	d, ok := h.t.(interface {
		DialSocket(ctx context.Context, path string) (net.Conn, error)
	})
	if !ok {
		return nil, fmt.Errorf("remote: the connection to %s cannot reach a socket there", h.Destination)
	}
	return d.DialSocket(ctx, path)
}

// claimSocket is where the watchdog takes claims, "" when it cannot be
// reclaimed: it never spoke of a backend, said the tree is gone, or has
// no claim socket.
func (r *Instance) claimSocket() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.said.exit != nil || r.said.backend.Backend.PID == 0 {
		return ""
	}
	return r.said.backend.ClaimSocket
}

// reclaim is called when the run's lifeline ended without the app asking
// (the session died): it waits for the host's next session and claims the
// tree with the session secret, until the heartbeat grace from the last
// pong ends (the watchdog there counts it from our last line). It returns
// the claim's connection and what follows its answer, or nil: past the
// grace, stopped, or nothing there is ours.
func (r *Instance) reclaim(ctx context.Context, sock string) (net.Conn, *bufio.Reader) {
	ctx, cancel := context.WithDeadline(ctx, r.beat.lastAnswer().Add(r.grace))
	defer cancel()
	r.log.Add("launcher", "the connection to "+r.host.Destination+" ended; reclaiming the backend there (it waits "+r.grace.String()+")")
	for attempt := 1; ; attempt++ {
		c, in, err := r.claim(ctx, sock, r.ids.secret)
		if err == nil {
			r.log.Add("launcher", fmt.Sprintf("reclaimed the backend on %s (attempt %d)", r.host.Destination, attempt))
			return c, in
		}
		if errors.Is(err, errNotOurs) {
			r.log.Add("launcher", "nothing to reclaim on "+r.host.Destination+": "+err.Error())
			return nil, nil
		}
		select {
		case <-ctx.Done():
			r.log.Add("launcher", "gave up reclaiming the backend on "+r.host.Destination+" past the grace: "+err.Error())
			return nil, nil
		case <-time.After(claimRetry):
		}
	}
}

// claim connects, dials the claim socket and claims with secret; the
// answer must name this run's backend.
func (r *Instance) claim(ctx context.Context, sock, secret string) (net.Conn, *bufio.Reader, error) {
	if err := r.host.t.Connect(ctx); err != nil {
		return nil, nil, err
	}
	c, err := r.host.dialSocket(ctx, sock)
	if err != nil { // the session is up: the watchdog is gone, or cannot be reached
		return nil, nil, fmt.Errorf("%w: %w", errNotOurs, err)
	}
	_ = c.SetDeadline(time.Now().Add(claimTimeout))
	in := bufio.NewReaderSize(c, 64<<10)
	var ans remotewd.RemoteClaimed
	if _, err = io.WriteString(c, remotewd.TagClaim+" "+secret+"\n"); err == nil {
		ans, err = readClaimed(in)
	}
	_ = c.SetDeadline(time.Time{})
	r.mu.Lock()
	want := r.said.backend.Backend
	r.mu.Unlock()
	if err == nil && want.PID != 0 && ans.Backend != want {
		err = fmt.Errorf("%w: it answered for backend %v, not %v", errNotOurs, ans.Backend, want)
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	r.mu.Lock()
	r.said.backend, r.said.hello.Shim = ans.RemoteBackend, ans.Shim
	r.mu.Unlock()
	return c, in, nil
}

// readClaimed reads a claim's answer.
func readClaimed(in *bufio.Reader) (remotewd.RemoteClaimed, error) {
	var ans remotewd.RemoteClaimed
	line, err := in.ReadString('\n')
	if err != nil {
		return ans, fmt.Errorf("remote: no answer to the claim: %w", err)
	}
	tag, payload, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
	switch tag {
	case remotewd.TagClaimed:
		if err := json.Unmarshal([]byte(payload), &ans); err != nil {
			return ans, fmt.Errorf("remote: the claim's answer: %w", err)
		}
		return ans, nil
	case remotewd.TagRefused:
		return ans, fmt.Errorf("%w: %s", errNotOurs, payload)
	}
	return ans, fmt.Errorf("remote: the claim's answer %q", tag)
}

// HandOver tells the remote watchdog that an update's successor will
// claim the backend within window, with a one-time secret: the EOF that
// follows (Detach, then this app's exit) keeps the tree that long.
func (r *Instance) HandOver(window time.Duration) (run.RemoteHandover, error) {
	r.mu.Lock()
	h := run.RemoteHandover{
		Host: r.host.Destination, OwnershipID: r.ids.ownershipID, SpawnNonce: r.ids.spawnNonce, Nonce: r.ids.nonce,
		Token: r.ids.token, Shim: r.said.hello.Shim, Backend: r.said.backend.Backend, ClaimSocket: r.said.backend.ClaimSocket,
		RemotePort: r.remotePort, LocalPort: r.localPort,
	}
	r.mu.Unlock()
	if h.ClaimSocket == "" || h.Backend.PID == 0 {
		return h, fmt.Errorf("remote: the backend on %s cannot be claimed (no claim socket there)", r.host.Destination)
	}
	secret, err := remotewd.NewSecret()
	if err != nil {
		return h, err
	}
	h.Secret = secret
	r.line.send(remotewd.FormatHandover(secret, window))
	return h, nil
}

// Detach lets go of the backend without a stop: the lifeline closes, and
// the watchdog there keeps the tree for a handover's window (or, without
// one, ends it at once: an EOF right after a beat).
func (r *Instance) Detach() { r.detached.open() }

var _ run.RemoteTransferable = (*Instance)(nil)
