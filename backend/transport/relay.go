package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
)

// Relay serves a local loopback port: each connection accepted there is
// copied both ways to a stream its dial opens (a forward's other end),
// until Close. backend/ssh's and backend/wsl's forwards are relays.
type Relay struct {
	ln   net.Listener
	dial func(context.Context) (net.Conn, error)
	life context.Context // ends at Close: bounds the dials
	end  context.CancelFunc
	wg   sync.WaitGroup // the accept loop and every connection's copiers

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // open connections, both sides; guarded by mu
	closed bool                  // guarded by mu
}

// Listen starts a relay on 127.0.0.1:local whose connections go to dial's
// streams. A port already taken is an error (the caller tries another).
func Listen(local int, dial func(context.Context) (net.Conn, error)) (*Relay, error) {
	if local <= 0 || local >= 1<<16 {
		return nil, fmt.Errorf("transport: listen on %d: not a port", local)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(local)))
	if err != nil {
		return nil, fmt.Errorf("transport: listen on %d: %w", local, err)
	}
	life, end := context.WithCancel(context.Background())
	r := &Relay{ln: ln, dial: dial, life: life, end: end, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept() // ends when Close closes the listener
	return r, nil
}

func (r *Relay) accept() {
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
		go r.serve(c) // ends when both directions have
	}
}

// track registers an open connection; false once the relay is closed.
func (r *Relay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *Relay) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.Close()
}

// serve connects the accepted connection to a new stream and copies both
// ways; each side's end of input is passed on as a half close, so a
// request/response exchange finishes as it would directly.
func (r *Relay) serve(in net.Conn) {
	defer r.wg.Done()
	defer r.untrack(in)
	out, err := r.dial(r.life)
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

// pipe copies src to dst, then half-closes dst's write side (a yamux
// stream's Close is one: it still reads), or closes dst.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		dst.Close()
	}
}

// Close stops accepting, closes every connection and waits for the
// relay's goroutines. Idempotent.
func (r *Relay) Close() {
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
