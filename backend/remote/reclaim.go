package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"hermes-desktop/backend/run"
	"hermes-desktop/backend/transport"
	"hermes-desktop/backend/wsl"
	"hermes-desktop/contract/logs"
	"hermes-desktop/platform/proc"
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

// claimer claims a remote watchdog's tree on one host: the claim
// protocol's client side.
type claimer struct {
	host *Machine
	log  *logs.Log
}

// claimed is a claim that succeeded: the connection (the lifeline from
// now on), what follows the answer on it, and the answer.
type claimed struct {
	conn net.Conn
	in   *bufio.Reader
	ans  remotewd.RemoteClaimed
}

// until claims sock with secret for the backend want, retrying while the
// host cannot be reached, until ctx ends; errNotOurs stops it at once.
func (c claimer) until(ctx context.Context, sock, secret string, want proc.Identity) (claimed, error) {
	for attempt := 1; ; attempt++ {
		got, err := c.once(ctx, sock, secret, want)
		if err == nil {
			c.log.Add("launcher", fmt.Sprintf("claimed the backend on %s (attempt %d)", c.host.Destination, attempt))
			return got, nil
		}
		if errors.Is(err, errNotOurs) {
			return got, err
		}
		select {
		case <-ctx.Done():
			return got, fmt.Errorf("%w (%w)", err, ctx.Err())
		case <-time.After(claimRetry):
		}
	}
}

// once connects, dials the claim socket and claims with secret; the
// answer must name want (when it is known).
func (c claimer) once(ctx context.Context, sock, secret string, want proc.Identity) (claimed, error) {
	if err := c.host.t.Connect(ctx); err != nil {
		return claimed{}, err
	}
	conn, err := c.host.dialSocket(ctx, sock)
	if errors.Is(err, transport.ErrRefusedThere) || errors.Is(err, wsl.ErrSocketTarget) { // nothing listens there, or cannot be reached (WSL)
		return claimed{}, fmt.Errorf("%w: %w", errNotOurs, err)
	}
	if err != nil { // the session went (again): the next one may claim
		return claimed{}, err
	}
	_ = conn.SetDeadline(time.Now().Add(claimTimeout))
	got := claimed{conn: conn, in: bufio.NewReaderSize(conn, 64<<10)}
	if _, err = io.WriteString(conn, remotewd.TagClaim+" "+secret+"\n"); err == nil {
		got.ans, err = readClaimed(got.in)
	}
	_ = conn.SetDeadline(time.Time{})
	if err == nil && want.PID != 0 && got.ans.Backend != want {
		err = fmt.Errorf("%w: it answered for backend %v, not %v", errNotOurs, got.ans.Backend, want)
	}
	if err != nil {
		conn.Close()
		return claimed{}, err
	}
	return got, nil
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

// dialSocket opens a stream to a unix socket on the host (an OpDial
// through the host's session).
func (h *Machine) dialSocket(ctx context.Context, path string) (net.Conn, error) {
	return h.t.Dial(ctx, transport.Target{Socket: path})
}

// claimSocket is where the watchdog takes claims, "" when its tree cannot
// be reclaimed: it never spoke of a backend, said the tree is gone, or
// has no claim socket.
func (s said) claimSocket() string {
	if s.exit != nil || s.backend.Backend.PID == 0 {
		return ""
	}
	return s.backend.ClaimSocket
}

// reclaim is called when the run's lifeline ended without the app asking
// (the session died): it waits for the host's next session and claims the
// tree with the session secret, until the heartbeat grace from the last
// pong ends (the watchdog there counts it from our last line). It returns
// the new lifeline, or false: past the grace, stopped, or nothing there is
// ours.
func (r *Instance) reclaim(ctx context.Context, wait func() error) (link, bool) {
	r.mu.Lock()
	sock, want := r.said.claimSocket(), r.said.backend.Backend
	r.mu.Unlock()
	if sock == "" {
		return link{}, false
	}
	// A beat later than the grace: the watchdog counts from our last line,
	// which may have come after the last pong here.
	ctx, cancel := context.WithDeadline(ctx, r.beat.lastAnswer().Add(r.grace+r.beat.every))
	defer cancel()
	r.log.Add("launcher", "the connection to "+r.host.Destination+" ended; reclaiming the backend there (it waits "+r.grace.String()+")")
	got, err := claimer{r.host, r.log}.until(ctx, sock, r.ids.secret, want)
	if err != nil {
		r.log.Add("launcher", "could not reclaim the backend on "+r.host.Destination+": "+err.Error())
		return link{}, false
	}
	return r.attach(got, wait), true
}

// attach makes a claim's connection the lifeline; wait collects what
// carried the one before (the first channel's ssh client; nil for none).
func (r *Instance) attach(c claimed, wait func() error) link {
	r.mu.Lock()
	r.said.backend, r.said.hello.Shim = c.ans.RemoteBackend, c.ans.Shim
	r.mu.Unlock()
	r.line.attach(c.conn)
	done := make(chan struct{})
	go func() { defer close(done); r.read(c.in) }()
	return link{done: done, kill: func() { c.conn.Close() }, wait: wait}
}

// HandOver tells the remote watchdog that an update's successor will
// claim the backend within window, with a one-time secret: the EOF that
// follows (Detach, then this app's exit) keeps the tree that long.
func (r *Instance) HandOver(window time.Duration) (run.RemoteHandover, error) {
	r.mu.Lock()
	h := run.RemoteHandover{
		Host: r.host.Destination, OwnershipID: r.ids.ownershipID, SpawnNonce: r.ids.spawnNonce, Nonce: r.ids.nonce,
		Token: r.ids.sendToken, Shim: r.said.hello.Shim, Backend: r.said.backend.Backend, ClaimSocket: r.said.claimSocket(),
		RemotePort: r.remotePort, Socket: forwardTarget(r.said.backend, r.remotePort).Socket, LocalPort: r.localPort,
	}
	r.mu.Unlock()
	if h.ClaimSocket == "" {
		return h, fmt.Errorf("remote: the backend on %s cannot be claimed (no claim socket there)", r.host.Destination)
	}
	secret, err := remotewd.NewSecret()
	if err != nil {
		return h, err
	}
	h.Secret = secret
	if p, ok := r.host.t.(listenerPasser); ok && h.LocalPort != 0 {
		if f, err := p.ForwardListener(h.LocalPort); err == nil {
			h.Listener = f
		} else {
			r.log.Add("launcher", "the local port is not handed over (the successor listens anew): "+err.Error())
		}
	}
	r.line.send(remotewd.FormatHandover(secret, window))
	return h, nil
}

// Detach lets go of the backend without a stop: the lifeline closes, and
// the watchdog there keeps the tree for a handover's window (or, without
// one, ends it at once: an EOF right after a beat). The local port stops
// accepting here: the successor's copy of its socket takes the next
// connections, while those open here finish.
func (r *Instance) Detach() {
	r.mu.Lock()
	local := r.localPort
	r.mu.Unlock()
	if p, ok := r.host.t.(listenerPasser); ok && local != 0 {
		p.StopAccepting(local)
	}
	r.detached.open()
}

// listenerPasser is a transport whose forwards' listening sockets an
// update's predecessor can hand to its successor (backend/ssh's Host).
type listenerPasser interface {
	ForwardListener(local int) (*os.File, error)
	StopAccepting(local int)
	ForwardOn(ctx context.Context, ln net.Listener, to transport.Target) error
}

var _ run.RemoteTransferable = (*Instance)(nil)
