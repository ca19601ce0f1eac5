package wsl

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"hermes-desktop/backend/transport"
)

// echoServer stands in for the backend inside the distribution: it sends
// back what it reads, then closes. Its port is returned.
func echoServer(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// exchange sends msg through 127.0.0.1:port, half-closes, and returns what
// came back before the end.
func exchange(port int, msg string) (string, error) {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", itoa(port)), 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	// Written while the answer is read: a large message would otherwise
	// fill the buffers both ways and stall.
	wrote := make(chan error, 1)
	go func() {
		_, err := io.WriteString(c, msg)
		if err == nil {
			err = c.(*net.TCPConn).CloseWrite()
		}
		wrote <- err
	}()
	b, err := io.ReadAll(c)
	if werr := <-wrote; err == nil {
		err = werr
	}
	return string(b), err
}

func itoa(n int) string { return strconv.Itoa(n) }

// newRelayTransport is a transport whose wsl.exe may be missing: the relay
// needs none.
func newRelayTransport(t *testing.T) *Transport {
	t.Helper()
	tr, err := New(Options{WSL: filepath.Join(t.TempDir(), "none")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestForward(t *testing.T) {
	tr := newRelayTransport(t)
	ctx := context.Background()
	remote, local := echoServer(t), freePort(t)
	if err := tr.Forward(ctx, local, transport.Target{Port: remote}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // several connections, one after another
		if got, err := exchange(local, "hello through the relay"); err != nil || got != "hello through the relay" {
			t.Fatalf("exchange %d: got %q, %v", i, got, err)
		}
	}
	big := string(make([]byte, 1<<20))
	if got, err := exchange(local, big); err != nil || got != big {
		t.Errorf("1 MiB exchange: got %d bytes, %v", len(got), err)
	}

	// A connection open through the relay ends with Unforward.
	open, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", itoa(local)))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if _, err := io.WriteString(open, "x"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	_ = open.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(open, buf); err != nil {
		t.Fatalf("read through the open connection: %v", err)
	}
	if err := tr.Unforward(ctx, local); err != nil {
		t.Fatal(err)
	}
	_ = open.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := open.Read(buf); err == nil {
		t.Errorf("after Unforward, the open connection still reads (%d bytes)", n)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Error("after Unforward, the open connection was not closed")
	}
	if _, err := exchange(local, "x"); err == nil {
		t.Error("after Unforward, the local port still answers")
	}
	if err := tr.Unforward(ctx, local); err == nil {
		t.Error("a second Unforward: got nil, want an error")
	}
}

func TestForwardRefuses(t *testing.T) {
	tr := newRelayTransport(t)
	ctx := context.Background()
	remote := echoServer(t)
	if err := tr.Forward(ctx, remote, transport.Target{Port: remote}); err == nil {
		t.Error("Forward onto its own port: got nil, want an error")
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	if err := tr.Forward(ctx, taken.Addr().(*net.TCPAddr).Port, transport.Target{Port: remote}); err == nil {
		t.Error("Forward from a port already taken: got nil, want an error")
	}
	for _, p := range [][2]int{{0, remote}, {70000, remote}, {freePort(t), -1}} {
		if err := tr.Forward(ctx, p[0], transport.Target{Port: p[1]}); err == nil {
			t.Errorf("Forward(%d, %d): got nil, want an error", p[0], p[1])
		}
	}
}

// TestCloseEndsForwards: Close takes every relay down, and nothing new
// starts afterwards.
func TestCloseEndsForwards(t *testing.T) {
	tr := newRelayTransport(t)
	ctx := context.Background()
	remote := echoServer(t)
	a, b := freePort(t), freePort(t)
	for _, l := range []int{a, b} {
		if err := tr.Forward(ctx, l, transport.Target{Port: remote}); err != nil {
			t.Fatal(err)
		}
	}
	tr.Close()
	for _, l := range []int{a, b} {
		if _, err := exchange(l, "x"); err == nil {
			t.Errorf("after Close, port %d still answers", l)
		}
	}
	if err := tr.Forward(ctx, a, transport.Target{Port: remote}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Forward after Close: got %v, want ErrClosed", err)
	}
	if _, err := tr.Run(ctx, time.Second, nil, "true"); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Run after Close: got %v, want ErrClosed", err)
	}
}

// A unix socket in the distribution is no target from Windows: Forward
// and Dial refuse it, saying so, and nothing listens.
func TestSocketTargetRefused(t *testing.T) {
	tr, err := New(Options{WSL: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ctx := context.Background()
	to := transport.Target{Socket: "/home/u/.hermes-desktop/run/x.sock"}
	local := freePort(t)
	if err := tr.Forward(ctx, local, to); !errors.Is(err, ErrSocketTarget) {
		t.Errorf("Forward to a socket: got %v, want ErrSocketTarget", err)
	}
	if c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", itoa(local))); err == nil {
		c.Close()
		t.Error("a refused forward listens")
	}
	if _, err := tr.Dial(ctx, to); !errors.Is(err, ErrSocketTarget) {
		t.Errorf("Dial to a socket: got %v, want ErrSocketTarget", err)
	}
}

// Dial opens one connection to the distribution's port.
func TestDialPort(t *testing.T) {
	tr, err := New(Options{WSL: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	c, err := tr.Dial(context.Background(), transport.Target{Port: echoServer(t)})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "ping"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Errorf("through Dial: got %q, %v", buf, err)
	}
}
