package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

func TestTargetCheck(t *testing.T) {
	for _, c := range []struct {
		to Target
		ok bool
	}{
		{Target{Port: 8080}, true},
		{Target{Socket: "/home/u/.hermes-desktop/x.sock"}, true},
		{Target{}, false},
		{Target{Port: 70000}, false},
		{Target{Port: -1}, false},
		{Target{Port: 1, Socket: "/x"}, false},
	} {
		if err := c.to.Check(); (err == nil) != c.ok {
			t.Errorf("%+v.Check(): got %v, want ok %v", c.to, err, c.ok)
		}
	}
}

// A Permanent error stays one through wrapping, and keeps what it wraps.
func TestPermanent(t *testing.T) {
	base := errors.New("unsafe home")
	err := fmt.Errorf("connect: %w", Permanent(base))
	if !IsPermanent(err) || !errors.Is(err, base) {
		t.Errorf("got permanent %v, is base %v; want both", IsPermanent(err), errors.Is(err, base))
	}
	if IsPermanent(base) {
		t.Error("an unmarked error is permanent")
	}
}

// ExitCode reads an ExitError through wrapping, -1 for anything else.
func TestExitCode(t *testing.T) {
	if got := ExitCode(fmt.Errorf("run: %w", &ExitError{Code: 6})); got != 6 {
		t.Errorf("got %d, want 6", got)
	}
	if got := ExitCode(errors.New("x")); got != -1 {
		t.Errorf("got %d, want -1", got)
	}
}

// A relay serves each connection with a stream of its dial, and Close
// ends the listener and the connections through it.
func TestRelay(t *testing.T) {
	dials := 0
	r, err := Listen(freePort(t), func(context.Context) (net.Conn, error) {
		dials++
		a, b := net.Pipe()
		go func() { // the far end: greets, echoes a line, closes
			defer b.Close()
			_, _ = io.WriteString(b, "hello\n")
			line, _ := bufio.NewReader(b).ReadString('\n')
			_, _ = io.WriteString(b, "echo "+line)
		}()
		return a, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := r.ln.Addr().String()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	if line, err := br.ReadString('\n'); line != "hello\n" {
		t.Fatalf("greeting: got %q, %v", line, err)
	}
	_, _ = io.WriteString(c, "x\n")
	if line, err := br.ReadString('\n'); line != "echo x\n" {
		t.Fatalf("echo: got %q, %v", line, err)
	}
	r.Close()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("the relay still listens after Close")
	}
	if dials != 1 {
		t.Errorf("dials: got %d, want 1", dials)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
