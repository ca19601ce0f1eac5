package control

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func serve(t *testing.T, dir string, h HandlerFunc) *Server {
	t.Helper()
	s, err := Listen(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx, h); close(done) }()
	t.Cleanup(func() { cancel(); s.Close(); <-done })
	return s
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := serve(t, dir, func(ctx context.Context, req Request) (any, error) {
		if req.Op == "fail" {
			return nil, errors.New("no such thing")
		}
		return map[string]string{"op": req.Op, "backend": req.Backend}, nil
	})
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi.Mode().Perm(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := Call(ctx, dir, Request{Op: OpStatus, Backend: "b"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(res, &got); err != nil || got["op"] != OpStatus || got["backend"] != "b" {
		t.Errorf("got %s (%v)", res, err)
	}
	if _, err := Call(ctx, dir, Request{Op: "fail"}); err == nil || err.Error() != "no such thing" {
		t.Errorf("error answer: got %v", err)
	}
}

func TestCallWithoutInstance(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := Call(ctx, t.TempDir(), Request{Op: OpStatus}); !errors.Is(err, ErrNotRunning) {
		t.Errorf("got %v, want ErrNotRunning", err)
	}
}

func TestListenReplacesStaleSocketOnly(t *testing.T) {
	dir := t.TempDir()
	s, err := Listen(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Simulate a crashed instance: the socket file stays behind.
	s.ln.SetUnlinkOnClose(false)
	s.Close()
	s2, err := Listen(dir, nil)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	s2.Close()

	other := t.TempDir()
	path := filepath.Join(other, SocketName)
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(other, nil); err == nil {
		t.Fatal("Listen replaced a regular file")
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Errorf("regular file was touched")
	}
}
