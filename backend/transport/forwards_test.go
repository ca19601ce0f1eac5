package transport

import (
	"context"
	"errors"
	"net"
	"testing"
)

// Forwards keeps one relay per local port, ends it on Remove, and after
// Close takes no more.
func TestForwards(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	local := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dial := func(ctx context.Context) (net.Conn, error) { return nil, errors.New("no target") }
	var f Forwards
	if err := f.Listen(local, dial); err != nil {
		t.Fatalf("Listen: %v", err)
	}
	if err := f.Listen(local, dial); !errors.Is(err, ErrForwarded) {
		t.Errorf("Listen twice: got %v, want ErrForwarded", err)
	}
	if _, ok := f.Get(local); !ok {
		t.Errorf("Get: no relay for %d", local)
	}
	if err := f.Remove(local); err != nil {
		t.Errorf("Remove: %v", err)
	}
	if err := f.Remove(local); err == nil {
		t.Error("Remove twice: got nil, want an error")
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the port still listens after Remove")
	}
	f.Close()
	if err := f.Listen(local, dial); !errors.Is(err, ErrClosed) {
		t.Errorf("Listen after Close: got %v, want ErrClosed", err)
	}
}
