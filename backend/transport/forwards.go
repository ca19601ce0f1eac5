package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
)

// Forwards are a transport's forwards by local port: the relays its
// Forward made, ended by Remove or Close. Safe for concurrent use; the
// zero value is ready.
type Forwards struct {
	mu     sync.Mutex
	relays map[int]*Relay // guarded by mu
	closed bool           // guarded by mu
}

// ErrForwarded means the local port is forwarded already.
var ErrForwarded = errors.New("transport: the port is forwarded already")

// Listen serves 127.0.0.1:local with dial (Listen).
func (f *Forwards) Listen(local int, dial func(context.Context) (net.Conn, error)) error {
	return f.add(local, func() (*Relay, error) { return Listen(local, dial) })
}

// Serve serves ln, a listener handed over, with dial (Serve); its port is
// the forward's local port.
func (f *Forwards) Serve(ln net.Listener, dial func(context.Context) (net.Conn, error)) error {
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("transport: forward on %v: not a TCP listener", ln.Addr())
	}
	return f.add(addr.Port, func() (*Relay, error) { return Serve(ln, dial), nil })
}

func (f *Forwards) add(local int, start func() (*Relay, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if _, ok := f.relays[local]; ok {
		return fmt.Errorf("%w: %d", ErrForwarded, local)
	}
	r, err := start()
	if err != nil {
		return err
	}
	if f.relays == nil {
		f.relays = map[int]*Relay{}
	}
	f.relays[local] = r
	return nil
}

// Get is the relay of local, if any.
func (f *Forwards) Get(local int) (*Relay, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.relays[local]
	return r, ok
}

// Remove ends the forward of local and its connections.
func (f *Forwards) Remove(local int) error {
	f.mu.Lock()
	r, ok := f.relays[local]
	delete(f.relays, local)
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("transport: no forward from %d", local)
	}
	r.Close()
	return nil
}

// Close ends every forward; later ones fail with ErrClosed. Idempotent.
func (f *Forwards) Close() {
	f.mu.Lock()
	f.closed = true
	relays := f.relays
	f.relays = nil
	f.mu.Unlock()
	for _, r := range relays {
		r.Close()
	}
}
