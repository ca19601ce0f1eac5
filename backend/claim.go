package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/lockfile"
)

// errShuttingDown: the launcher closed its claim while a handoff was
// giving the state dir back.
var errShuttingDown = errors.New("the launcher is shutting down, so the state dir was not taken back")

// stateClaim is what makes this process the state dir's instance: the
// single-instance lock, this instance's owner lock and the control socket
// served under them. Open takes it and close ends it. A handoff lets go of
// it for a successor and, when a restart-mode successor fails to come up,
// takes it back from the handoff's goroutine (a control handler's, or the
// window's) while Shutdown may be closing it: mu orders the two, and once
// closed nothing is taken back.
type stateClaim struct {
	dir    string
	nonce  string
	logger *slog.Logger

	mu        sync.Mutex // guards every field below
	instLock  *lockfile.Lock
	ownerLock *lockfile.Lock
	ctl       *control.Server // nil before Open listens
	// retired are the servers a handoff stopped listening on; their
	// requests in flight (the handoff's own, say) run on and close awaits
	// them.
	retired []*control.Server
	handler control.Handler    // what the socket answers with; nil until serve
	ctx     context.Context    // ends every Serve; set by serve
	cancel  context.CancelFunc // cancels ctx
	closed  bool               // set once by close: nothing is served or taken after
	serving sync.WaitGroup     // one per Serve; Add only under mu while not closed
}

// acquire takes the single-instance lock (waiting up to wait for a
// predecessor that is handing over; 0 waits for none) and the owner lock.
func (c *stateClaim) acquire(wait time.Duration) error {
	inst, owner, err := c.takeLocks(wait)
	c.mu.Lock()
	c.instLock, c.ownerLock = inst, owner
	c.mu.Unlock()
	if errors.Is(err, lockfile.ErrHeld) {
		return fmt.Errorf("%w (state dir %s)", ErrAlreadyRunning, c.dir)
	}
	return err
}

// takeLocks takes both locks; on an error it holds neither, except an
// instance lock taken before the owner lock failed, which it returns.
func (c *stateClaim) takeLocks(wait time.Duration) (inst, owner *lockfile.Lock, err error) {
	if wait > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		inst, err = lockfile.AcquireWait(ctx, filepath.Join(c.dir, lockfile.InstanceLockName))
	} else {
		inst, err = lockfile.AcquireInstance(c.dir)
	}
	if err != nil {
		return nil, nil, err
	}
	owner, err = lockfile.AcquireOwner(c.dir, c.nonce)
	return inst, owner, err
}

// hold records the locks an adopt-mode successor took while receiving.
func (c *stateClaim) hold(inst, owner *lockfile.Lock) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.instLock, c.ownerLock = inst, owner
}

// listen opens the control socket (served once serve is called).
func (c *stateClaim) listen() error {
	ctl, err := control.Listen(c.dir, c.logger)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctl = ctl
	return nil
}

// serve answers the socket with h, in a goroutine the claim owns (ended
// by close, which awaits it).
func (c *stateClaim) serve(h control.Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.handler = h
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.serveLocked()
}

// serveLocked starts serving the current socket. Call with mu held, not
// closed, after serve.
func (c *stateClaim) serveLocked() {
	srv, ctx, h := c.ctl, c.ctx, c.handler
	c.serving.Add(1)
	go func() {
		defer c.serving.Done()
		srv.Serve(ctx, h)
	}()
}

// letGo releases what a successor needs: the socket (requests in flight
// run on) and both locks. Once closed there is nothing left to release.
func (c *stateClaim) letGo() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.ctl != nil {
		_ = c.ctl.StopListening()
		c.retired = append(c.retired, c.ctl)
		c.ctl = nil
	}
	_ = c.ownerLock.Release()
	_ = c.instLock.Release()
	c.ownerLock, c.instLock = nil, nil
}

// takeBack takes the locks and the socket back after a failed
// restart-mode handoff and serves again. The waiting is done unlocked, so
// Shutdown is never held up by it; if the claim was closed meanwhile,
// what was taken is given up again and errShuttingDown returned.
func (c *stateClaim) takeBack(ctx context.Context) error {
	inst, err := lockfile.AcquireWait(ctx, filepath.Join(c.dir, lockfile.InstanceLockName))
	if err != nil {
		return fmt.Errorf("the state dir could not be taken back: %w", err)
	}
	owner, err := lockfile.AcquireOwner(c.dir, c.nonce)
	if err != nil {
		_ = inst.Release()
		return fmt.Errorf("the owner lock could not be taken back: %w", err)
	}
	ctl, err := control.Listen(c.dir, c.logger)
	if err != nil {
		_ = errors.Join(owner.Release(), inst.Release())
		return fmt.Errorf("the control channel could not be reopened: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = errors.Join(ctl.Close(), owner.Release(), inst.Release())
		return errShuttingDown
	}
	c.instLock, c.ownerLock, c.ctl = inst, owner, ctl
	if c.handler != nil {
		c.serveLocked()
	}
	return nil
}

// close stops serving, awaits the requests in flight and releases both
// locks (the lock files stay). It is idempotent. It holds mu only to mark
// the claim closed: a request in flight may be a handoff that needs mu to
// learn that nothing is to be taken back.
func (c *stateClaim) close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.cancel != nil {
		c.cancel()
	}
	servers := c.retired
	if c.ctl != nil {
		servers = append(servers, c.ctl)
	}
	inst, owner := c.instLock, c.ownerLock
	c.mu.Unlock()
	var errs []error
	for _, srv := range servers {
		errs = append(errs, srv.Close())
	}
	c.serving.Wait()
	errs = append(errs, owner.Release(), inst.Release())
	return errors.Join(errs...)
}
