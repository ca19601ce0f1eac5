package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// An error's kind survives the socket: the caller branches with errors.Is
// on the same sentinel the handler wrapped.
func TestErrorCodesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		err      error
		code     Code
		sentinel error
	}{
		"no-backend": {fmt.Errorf("%w: %q", ErrNoSuchBackend, "x"), CodeNoSuchBackend, ErrNoSuchBackend},
		"busy":       {fmt.Errorf("handoff: %w", ErrBusy), CodeBusy, ErrBusy},
		"bad":        {fmt.Errorf("reap: %w: bad json", ErrBadRequest), CodeBadRequest, ErrBadRequest},
		"unknown":    {fmt.Errorf("%w %q", ErrUnknownOp, "x"), CodeUnknownOp, ErrUnknownOp},
		"refused":    {fmt.Errorf("%w: adopt mode needs the shim", ErrRefused), CodeRefused, ErrRefused},
		"canceled":   {fmt.Errorf("stop: %w", context.DeadlineExceeded), CodeCanceled, context.Canceled},
		"up-to-date": {fmt.Errorf("update: %w: 1.0.0 is the latest", ErrUpToDate), CodeUpToDate, ErrUpToDate},
		"offline":    {fmt.Errorf("update: %w: connection refused", ErrOffline), CodeOffline, ErrOffline},
		"unverified": {fmt.Errorf("update: %w: bad signature", ErrUnverified), CodeUnverified, ErrUnverified},
		"no-space":   {fmt.Errorf("update: %w: ENOSPC", ErrNoSpace), CodeNoSpace, ErrNoSpace},
		"internal":   {errors.New("disk on fire"), CodeInternal, nil},
	}
	serve(t, dir, func(ctx context.Context, req Request) (any, error) { return nil, cases[req.Op].err })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for name, tc := range cases {
		_, err := Call(ctx, dir, Request{Op: name})
		var remote *RemoteError
		if !errors.As(err, &remote) || remote.Code != tc.code {
			t.Errorf("%s: got %#v, want a RemoteError with code %q", name, err, tc.code)
			continue
		}
		if remote.Message != tc.err.Error() {
			t.Errorf("%s: message: got %q, want %q", name, remote.Message, tc.err.Error())
		}
		if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
			t.Errorf("%s: errors.Is(%v, %v) is false", name, err, tc.sentinel)
		}
		for _, other := range []error{ErrNoSuchBackend, ErrBusy, ErrBadRequest, ErrUpToDate, ErrOffline, ErrUnverified, ErrNoSpace} {
			if other != tc.sentinel && errors.Is(err, other) {
				t.Errorf("%s: matches %v too", name, other)
			}
		}
	}
}

// Close must not depend on the Serve context being cancelled first, and
// must end requests in flight that wait on their context.
func TestCloseWithoutCancel(t *testing.T) {
	dir := t.TempDir()
	s, err := Listen(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.Serve(context.Background(), HandlerFunc(func(ctx context.Context, req Request) (any, error) {
			close(entered)
			<-ctx.Done()
			return nil, ctx.Err()
		}))
	}()
	callDone := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := Call(ctx, dir, Request{Op: OpStop})
		callDone <- err
	}()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return without a cancelled context")
	}
	<-served
	if err := <-callDone; !errors.Is(err, context.Canceled) {
		t.Errorf("request in flight: got %v, want it cancelled", err)
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
