package wsl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"hermes-desktop/backend/ssh"
)

// dialTimeout bounds the connect to the distribution's port per accepted
// connection.
const dialTimeout = 10 * time.Second

// forward is one relay's ports: 127.0.0.1:Local here to 127.0.0.1:Remote.
type forward struct{ Local, Remote int }

// relay listens on a local port and copies each connection to the remote
// port and back, until closed.
type relay struct {
	ln     net.Listener
	target string
	life   context.Context // ends at close: bounds the dials
	end    context.CancelFunc
	wg     sync.WaitGroup // the accept loop and every connection's copiers

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // open connections, both sides; guarded by mu
	closed bool                  // guarded by mu
}

// Forward listens on 127.0.0.1:local and relays each connection to
// 127.0.0.1:remote, which WSL 2 forwards into the distribution. The relay
// lives until Unforward or Close. A local port already taken is an error
// (the caller tries another).
func (t *Transport) Forward(ctx context.Context, local, remote int) error {
	if !validPort(local) || !validPort(remote) {
		return fmt.Errorf("wsl: forward %d -> %d: not a port", local, remote)
	}
	if local == remote {
		// Both ends would be the same socket here: a relay onto itself.
		return fmt.Errorf("wsl: forward %d -> %d: the local port is the remote one", local, remote)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f := forward{local, remote}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fmt.Errorf("wsl: forward: %w", ssh.ErrClosed)
	}
	if _, ok := t.relays[f]; ok {
		return nil
	}
	r, err := listen(f)
	if err != nil {
		return err
	}
	t.relays[f] = r
	return nil
}

// Unforward ends a Forward: its listener and every connection through it.
func (t *Transport) Unforward(_ context.Context, local, remote int) error {
	f := forward{local, remote}
	t.mu.Lock()
	r, ok := t.relays[f]
	delete(t.relays, f)
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("wsl: no forward %d -> %d", local, remote)
	}
	r.close()
	return nil
}

func validPort(p int) bool { return p > 0 && p < 1<<16 }

// listen starts f's relay.
func listen(f forward) (*relay, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Local)))
	if err != nil {
		return nil, fmt.Errorf("wsl: forward %d -> %d: %w", f.Local, f.Remote, err)
	}
	life, end := context.WithCancel(context.Background())
	r := &relay{
		ln:     ln,
		target: net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Remote)),
		life:   life,
		end:    end,
		conns:  map[net.Conn]struct{}{},
	}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // closed
		}
		if !r.track(c) {
			c.Close()
			return
		}
		r.wg.Add(1)
		go r.serve(c)
	}
}

// track registers an open connection; false once the relay is closed.
func (r *relay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *relay) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.Close()
}

// serve connects the accepted connection to the target and copies both
// ways; each side's end of input is passed on as a half close, so a
// request/response exchange finishes as it would directly.
func (r *relay) serve(in net.Conn) {
	defer r.wg.Done()
	defer r.untrack(in)
	d := net.Dialer{Timeout: dialTimeout}
	out, err := d.DialContext(r.life, "tcp", r.target)
	if err != nil {
		return // the client sees its connection closed, as with ssh -L
	}
	if !r.track(out) {
		out.Close()
		return
	}
	defer r.untrack(out)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pipe(out, in) }()
	go func() { defer wg.Done(); pipe(in, out) }()
	wg.Wait()
}

// pipe copies src to dst, then half-closes dst's write side (or closes dst
// when it has none).
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		dst.Close()
	}
}

// close stops accepting, closes every connection and waits for the
// relay's goroutines.
func (r *relay) close() {
	r.mu.Lock()
	r.closed = true
	conns := r.conns
	r.conns = map[net.Conn]struct{}{}
	r.mu.Unlock()
	r.end()
	r.ln.Close()
	for c := range conns {
		c.Close()
	}
	r.wg.Wait()
}
