package ssh

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"hermes-desktop/platform/proc"
)

// sunPathMax is the smallest sun_path (macOS, the BSDs); ssh binds
// "<path>.<16 random>" first and renames it, hence the 17 more bytes.
const sunPathMax = 104 - 1 - 17

// Host is one remote host: one master connection, shared by every command,
// channel and forward to it for the app's session. Its methods are safe for
// concurrent use.
type Host struct {
	opts        Options
	owner       proc.Identity // this process, which the master's shim follows
	controlPath string
	life        context.Context // ends at Close; bounds every attempt
	end         context.CancelFunc
	wg          sync.WaitGroup // the connect loop and the masters' waiters

	mu             sync.Mutex
	status         Status    // guarded by mu
	flight         *flight   // the attempt loop in flight, nil if none; guarded by mu
	master         *master   // the live master, nil if none; guarded by mu
	forwards       []forward // re-added after a reconnect; guarded by mu
	res            *resolved // ssh -G, once; guarded by mu
	strictOverride bool      // guarded by mu (set with res)
	closed         bool      // guarded by mu
}

// flight is one run of the attempt loop; every Connect waiting on it gets
// its result, so at most one attempt per host is ever in flight.
type flight struct {
	done chan struct{}
	err  error // written before done closes
}

// New returns a Host for opts; it starts nothing until Connect.
func New(opts Options) (*Host, error) {
	if err := checkPlatform(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if opts.Destination == "" || strings.HasPrefix(opts.Destination, "-") {
		return nil, fmt.Errorf("ssh: invalid destination %q", opts.Destination)
	}
	if opts.ControlDir == "" {
		return nil, errors.New("ssh: no control dir")
	}
	if opts.Self == "" {
		return nil, errors.New("ssh: no hermes-desktop executable to run the master's shim")
	}
	owner, err := proc.Self()
	if err != nil {
		return nil, fmt.Errorf("ssh: identify this process for the master's shim: %w", err)
	}
	path := filepath.Join(opts.ControlDir, controlName(opts, owner))
	if len(path) > sunPathMax {
		return nil, fmt.Errorf("%w: %s (%d bytes, at most %d)", ErrControlPath, path, len(path), sunPathMax)
	}
	if strings.Contains(path, "%") {
		path = strings.ReplaceAll(path, "%", "%%") // ssh expands %-tokens in ControlPath
	}
	life, end := context.WithCancel(context.Background())
	return &Host{opts: opts, owner: owner, controlPath: path, life: life, end: end}, nil
}

// controlName is short and unique per destination, config file and owner:
// during a handoff two instances each run a master to the same host, and
// one must never take (or, exiting, remove) the other's socket.
func controlName(o Options, owner proc.Identity) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%s\x00%d\x00%s",
		o.Destination, o.ConfigFile, o.KnownHostsFile, o.IdentityFile, owner.PID, owner.Start))
	return "cm-" + hex.EncodeToString(sum[:6])
}

// Status returns the connection's current status.
func (h *Host) Status() Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

// setStatus records s and tells OnState. Called with mu held.
func (h *Host) setStatus(s Status) {
	h.status = s
	if h.opts.OnState != nil {
		h.opts.OnState(s)
	}
}

// Connect returns once the master is up, or with why it is not. It joins
// an attempt already in flight rather than starting another; ctx bounds
// the wait, not the attempt (others may be waiting on it too).
func (h *Host) Connect(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	if h.status.State == Connected {
		h.mu.Unlock()
		return nil
	}
	f := h.startFlight(Connecting)
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
func (h *Host) startFlight(first State) *flight {
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
func (h *Host) attempts(f *flight, first State) {
	defer h.wg.Done()
	var err error
	for n := 1; ; n++ {
		h.mu.Lock()
		h.setStatus(Status{State: first, Attempt: n, Err: err})
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
		first = Reconnecting
		h.mu.Lock()
		h.setStatus(Status{State: Reconnecting, Attempt: n + 1, Next: time.Now().Add(wait), Err: err})
		h.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-h.life.Done():
			t.Stop()
			h.finish(f, ErrClosed)
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
			err = ErrClosed
		}
	case err == nil:
		h.setStatus(Status{State: Connected})
	default:
		err = fmt.Errorf("ssh: connect %s: %w", h.opts.Destination, err)
		h.setStatus(Status{State: Failed, Err: err})
	}
	h.flight = nil
	f.err = err
	close(f.done)
}

// dial makes one attempt: resolve the destination (once), start a master
// and wait for it to be authenticated.
func (h *Host) dial(ctx context.Context) error {
	r, err := h.resolveOnce(ctx)
	if err != nil {
		return err
	}
	// A socket left by our own master that died would make the new one run
	// without multiplexing ("ControlSocket already exists"); the path names
	// this process, so it is never another instance's.
	_ = os.Remove(h.controlPath)
	m, err := startMaster(h.opts.Self, h.owner, h.opts.SSH, h.masterArgs())
	if err != nil {
		return err
	}
	h.wg.Add(1)
	go h.watch(m) // ends when the master exits
	if err := m.waitReady(ctx, h.opts.ConnectTimeout); err != nil {
		m.kill()
		<-m.done
		if errors.Is(err, ErrUnknownHostKey) || errors.Is(err, ErrHostKeyChanged) {
			return hostKeyError(ctx, h.opts, r, err)
		}
		return err
	}
	h.mu.Lock()
	select {
	case <-m.done:
		h.mu.Unlock()
		return fmt.Errorf("%w: the master exited right after connecting: %s", ErrUnreachable, lastLine(m.sshStderr()))
	default:
	}
	if h.closed { // Close ran while we waited and saw no master to end
		h.mu.Unlock()
		m.kill()
		<-m.done
		return ErrClosed
	}
	h.master = m
	fwds := append([]forward(nil), h.forwards...)
	h.mu.Unlock()
	h.reforward(ctx, fwds)
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

// watch waits for master m to exit; an exit the Host did not ask for (the
// server went away, the network broke, someone killed ssh) starts the
// reconnect loop.
func (h *Host) watch(m *master) {
	defer h.wg.Done()
	<-m.done
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.master != m {
		return // never became the master, or replaced
	}
	h.master = nil
	if h.closed {
		return
	}
	h.setStatus(Status{State: Reconnecting, Attempt: 1, Err: classify(m.sshStderr())})
	h.startFlight(Reconnecting)
}

// Close ends the master (`ssh -O exit`, then its shim's teardown if it
// lingers), waits for it and every goroutine of the Host, and removes the
// socket. Channels from Start end with it (their caller collects them).
// Idempotent.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.wg.Wait()
		return nil
	}
	h.closed = true
	m := h.master
	h.end()
	h.setStatus(Status{State: Closed})
	h.mu.Unlock()
	var err error
	if m != nil {
		err = h.exitMaster(m)
	}
	h.wg.Wait()
	_ = os.Remove(h.controlPath)
	return err
}

// exitMaster asks the master to exit through its socket and waits for it.
func (h *Host) exitMaster(m *master) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.control(ctx, "exit")
	select {
	case <-m.done:
		return nil
	case <-ctx.Done():
	}
	m.kill()
	<-m.done
	return fmt.Errorf("ssh: close %s: the master did not exit on request; killed", h.opts.Destination)
}
