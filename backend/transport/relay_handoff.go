package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
)

// An update's predecessor hands a forward's listening socket to its
// successor (File), which serves it (Serve): connections made meanwhile
// wait in the socket's backlog instead of being refused.

// Serve starts a relay on ln, a listener made elsewhere (inherited from a
// predecessor), whose connections go to dial's streams, as Listen's do.
func Serve(ln net.Listener, dial func(context.Context) (net.Conn, error)) *Relay {
	life, end := context.WithCancel(context.Background())
	r := &Relay{ln: ln, dial: dial, life: life, end: end, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept() // ends when Close or StopAccepting closes the listener
	return r
}

// File is a copy of the relay's listening socket, for a successor.
func (r *Relay) File() (*os.File, error) {
	l, ok := r.ln.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, errors.New("transport: the forward's listener cannot be passed on")
	}
	f, err := l.File()
	if err != nil {
		return nil, fmt.Errorf("transport: pass the forward's listener on: %w", err)
	}
	return f, nil
}

// StopAccepting closes the relay's listener but not its connections,
// which finish: a successor holding a copy of the socket takes the next
// ones. Close still ends the relay.
func (r *Relay) StopAccepting() { r.ln.Close() }
