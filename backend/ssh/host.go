package ssh

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/yamux"

	"hermes-desktop/backend/transport"
	"hermes-desktop/platform/proc"
)

// Host is one remote host: one ssh session carrying our multiplexer,
// shared by every command, channel and forward to it for the app's
// session. Its methods are safe for concurrent use.
type Host struct {
	opts  Options
	owner proc.Identity   // this process, which the session's shim follows
	life  context.Context // ends at Close; bounds every attempt
	end   context.CancelFunc
	wg    sync.WaitGroup // the connect loop and the links' watchers

	mu             sync.Mutex
	status         transport.Status   // guarded by mu
	flight         *flight            // the attempt loop in flight, nil if none; guarded by mu
	live           *link              // the session up now, nil if none; guarded by mu
	forwards       transport.Forwards // by local port
	res            *resolved          // ssh -G, once; guarded by mu
	strictOverride bool               // guarded by mu (set with res)
	closed         bool               // guarded by mu
}

// link is one session and the multiplexer's client over it.
type link struct {
	s   *session
	mux *yamux.Session
}

// flight is one run of the attempt loop; every Connect waiting on it gets
// its result, so at most one attempt per host is ever in flight.
type flight struct {
	done chan struct{}
	err  error // written before done closes
}

// New returns a Host for opts; it starts nothing until Connect.
func New(opts Options) (*Host, error) {
	opts = opts.withDefaults()
	if opts.Destination == "" || strings.HasPrefix(opts.Destination, "-") {
		return nil, fmt.Errorf("ssh: invalid destination %q", opts.Destination)
	}
	if opts.Boot == nil {
		return nil, errors.New("ssh: no bootstrap to run on the host")
	}
	if opts.Self == "" {
		return nil, errors.New("ssh: no hermes-desktop executable to run the session's shim")
	}
	owner, err := proc.Self()
	if err != nil {
		return nil, fmt.Errorf("ssh: identify this process for the session's shim: %w", err)
	}
	life, end := context.WithCancel(context.Background())
	return &Host{opts: opts, owner: owner, life: life, end: end}, nil
}

// Status returns the connection's current status.
func (h *Host) Status() transport.Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

// setStatus records s and tells OnState. Called with mu held.
func (h *Host) setStatus(s transport.Status) {
	h.status = s
	if h.opts.OnState != nil {
		h.opts.OnState(s)
	}
}

// Connect returns once the session serves, or with why it does not. It
// joins an attempt already in flight rather than starting another; ctx
// bounds the wait, not the attempt (others may be waiting on it too).
func (h *Host) Connect(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return transport.ErrClosed
	}
	if h.status.State == transport.Connected && h.live != nil {
		h.mu.Unlock()
		return nil
	}
	f := h.startFlight(transport.Connecting)
	h.mu.Unlock()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startFlight returns the flight in progress or starts one. Called with mu
// held.
func (h *Host) startFlight(first transport.State) *flight {
	if h.flight != nil {
		return h.flight
	}
	f := &flight{done: make(chan struct{})}
	h.flight = f
	h.wg.Add(1)
	go h.attempts(f, first) // ends when connected, failed or closed
	return f
}

// attempts is the attempt loop: one attempt at a time, exponential backoff
// between them, at most MaxAttempts, a permanent error at once to Failed.
func (h *Host) attempts(f *flight, first transport.State) {
	defer h.wg.Done()
	var err error
	for n := 1; ; n++ {
		h.mu.Lock()
		h.setStatus(transport.Status{State: first, Attempt: n, Err: err})
		h.mu.Unlock()
		if err = h.dial(h.life); err == nil {
			h.finish(f, nil)
			return
		}
		if permanent(err) || n >= h.opts.MaxAttempts || h.life.Err() != nil {
			h.finish(f, err)
			return
		}
		wait := h.opts.backoff(n)
		first = transport.Reconnecting
		h.mu.Lock()
		h.setStatus(transport.Status{State: transport.Reconnecting, Attempt: n + 1, Next: time.Now().Add(wait), Err: err})
		h.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-h.life.Done():
			t.Stop()
			h.finish(f, transport.ErrClosed)
			return
		}
	}
}

// finish ends flight f with err and sets the resulting state.
func (h *Host) finish(f *flight, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		if err == nil {
			err = transport.ErrClosed
		}
	case err == nil:
		h.setStatus(transport.Status{State: transport.Connected})
	default:
		err = fmt.Errorf("ssh: connect %s: %w", h.opts.Destination, err)
		h.setStatus(transport.Status{State: transport.Failed, Err: err})
	}
	h.flight = nil
	f.err = err
	close(f.done)
}

// dial makes one attempt: resolve the destination (once), start the
// session, run the bootstrap and start the multiplexer over it.
func (h *Host) dial(ctx context.Context) error {
	r, err := h.resolveOnce(ctx)
	if err != nil {
		return err
	}
	s, err := startSession(h.opts.Self, h.owner, h.opts.SSH, h.sessionArgs(h.opts.Boot.Command()))
	if err != nil {
		return err
	}
	mux, err := h.boot(ctx, s)
	if err != nil {
		if errors.Is(err, ErrUnknownHostKey) || errors.Is(err, ErrHostKeyChanged) {
			return hostKeyError(ctx, h.opts, r, err)
		}
		return err
	}
	l := &link{s: s, mux: mux}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed { // Close ran while we waited and saw no session to end
		mux.Close()
		s.end()
		return transport.ErrClosed
	}
	h.live = l
	h.wg.Add(1)
	go h.watch(l) // ends when the session does
	return nil
}

func (h *Host) resolveOnce(ctx context.Context) (resolved, error) {
	h.mu.Lock()
	if h.res != nil {
		defer h.mu.Unlock()
		return *h.res, nil
	}
	h.mu.Unlock()
	r, err := resolve(ctx, h.opts)
	if err != nil {
		return r, err
	}
	h.mu.Lock()
	h.res = &r
	h.strictOverride = r.StrictHostKeyChecking == "false"
	h.mu.Unlock()
	return r, nil
}

// watch waits for link l to end: ssh exited (the server went away, the
// network broke, someone killed it) or the multiplexer gave up (its
// keepalive went unanswered: ssh is ended too). An end the Host did not
// ask for starts the reconnect loop; the forwards' listeners stay and
// dial the next session.
func (h *Host) watch(l *link) {
	defer h.wg.Done()
	select {
	case <-l.s.done:
	case <-l.mux.CloseChan():
		l.s.kill()
		<-l.s.done
	}
	l.mux.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.live != l {
		return
	}
	h.live = nil
	if h.closed {
		return
	}
	h.setStatus(transport.Status{State: transport.Reconnecting, Attempt: 1, Err: classify(l.s.sshStderr())})
	h.startFlight(transport.Reconnecting)
}

// closeWait bounds how long Close waits for ssh to exit on its own after
// the multiplexer closed (the remote core ends once its commands have).
const closeWait = 5 * time.Second

// Close ends every forward and the session (the multiplexer's close, EOF
// on ssh's stdin, then the shim's teardown if ssh lingers), and waits for
// it and every goroutine of the Host. Channels from Start end with it
// (their caller collects them). Idempotent.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.wg.Wait()
		return nil
	}
	h.closed = true
	l := h.live
	h.end()
	h.setStatus(transport.Status{State: transport.Closed})
	h.mu.Unlock()
	h.forwards.Close()
	var err error
	if l != nil {
		l.mux.Close() // closes ssh's stdin and stdout: EOF there
		select {
		case <-l.s.done:
		case <-time.After(closeWait):
			l.s.end()
			err = fmt.Errorf("ssh: close %s: the session did not end on EOF; killed", h.opts.Destination)
		}
	}
	h.wg.Wait()
	return err
}

// current is the link up now, or an error saying there is none.
func (h *Host) current() (*link, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, transport.ErrClosed
	case h.live == nil:
		return nil, fmt.Errorf("%w: the session to %s ended", ErrUnreachable, h.opts.Destination)
	}
	return h.live, nil
}
