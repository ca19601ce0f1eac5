package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"hermes-desktop/contract/errkind"
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
	if got, want := s.Path(), SocketPath(dir); got != want {
		t.Errorf("Path: got %q, want SocketPath's %q", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := Call(ctx, dir, Request{Op: "status", Backend: "b"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(res, &got); err != nil || got["op"] != "status" || got["backend"] != "b" {
		t.Errorf("got %s (%v)", res, err)
	}
	if _, err := Call(ctx, dir, Request{Op: "fail"}); err == nil || err.Error() != "no such thing" {
		t.Errorf("error answer: got %v", err)
	}
}

// An error's kind survives the channel: the caller branches with errors.Is
// on the same sentinel the handler wrapped.
func TestErrorCodesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		err      error
		code     errkind.Code
		sentinel error
	}{
		"no-backend": {fmt.Errorf("%w: %q", errkind.ErrNoSuchBackend, "x"), errkind.CodeNoSuchBackend, errkind.ErrNoSuchBackend},
		"busy":       {fmt.Errorf("handoff: %w", errkind.ErrBusy), errkind.CodeBusy, errkind.ErrBusy},
		"bad":        {fmt.Errorf("reap: %w: bad json", errkind.ErrBadRequest), errkind.CodeBadRequest, errkind.ErrBadRequest},
		"unknown":    {fmt.Errorf("%w %q", errkind.ErrUnknownOp, "x"), errkind.CodeUnknownOp, errkind.ErrUnknownOp},
		"refused":    {fmt.Errorf("%w: adopt mode needs the shim", errkind.ErrRefused), errkind.CodeRefused, errkind.ErrRefused},
		"canceled":   {fmt.Errorf("stop: %w", context.DeadlineExceeded), errkind.CodeCanceled, context.Canceled},
		"up-to-date": {fmt.Errorf("update: %w: 1.0.0 is the latest", errkind.ErrUpToDate), errkind.CodeUpToDate, errkind.ErrUpToDate},
		"offline":    {fmt.Errorf("update: %w: connection refused", errkind.ErrOffline), errkind.CodeOffline, errkind.ErrOffline},
		"unverified": {fmt.Errorf("update: %w: bad signature", errkind.ErrUnverified), errkind.CodeUnverified, errkind.ErrUnverified},
		"no-space":   {fmt.Errorf("update: %w: ENOSPC", errkind.ErrNoSpace), errkind.CodeNoSpace, errkind.ErrNoSpace},
		"internal":   {errors.New("disk on fire"), errkind.CodeInternal, nil},
	}
	serve(t, dir, func(ctx context.Context, req Request) (any, error) { return nil, cases[req.Op].err })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for name, tc := range cases {
		_, err := Call(ctx, dir, Request{Op: name})
		var remote *errkind.RemoteError
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
		for _, other := range []error{errkind.ErrNoSuchBackend, errkind.ErrBusy, errkind.ErrBadRequest, errkind.ErrUpToDate, errkind.ErrOffline, errkind.ErrUnverified, errkind.ErrNoSpace} {
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
		_, err := Call(ctx, dir, Request{Op: "stop"})
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
	if _, err := Call(ctx, t.TempDir(), Request{Op: "status"}); !errors.Is(err, ErrNotRunning) {
		t.Errorf("got %v, want ErrNotRunning", err)
	}
}

// A channel closed without a crash leaves nothing behind: callers are told
// nobody runs, and the next instance listens where the last one did.
func TestListenAgainAfterClose(t *testing.T) {
	dir := t.TempDir()
	s, err := Listen(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := Call(ctx, dir, Request{Op: "status"}); !errors.Is(err, ErrNotRunning) {
		t.Errorf("after Close: got %v, want ErrNotRunning", err)
	}
	s2, err := Listen(dir, nil)
	if err != nil {
		t.Fatalf("Listen after Close: %v", err)
	}
	s2.Close()
}

// A handoff's successor listens while its predecessor still answers the
// request that asked for the handoff (StopListening, then the successor's
// Listen; the predecessor answers once the successor serves). New callers
// reach the successor; the request in flight still gets its answer.
func TestListenWhileAPredecessorAnswers(t *testing.T) {
	dir := t.TempDir()
	entered, release := make(chan struct{}), make(chan struct{})
	old := serve(t, dir, func(ctx context.Context, req Request) (any, error) {
		close(entered)
		<-release
		return "old", nil
	})
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(letGo) // before old's Close, which waits for the handler
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inFlight := make(chan string, 1)
	go func() {
		res, err := Call(ctx, dir, Request{Op: "handoff"})
		if err != nil {
			inFlight <- err.Error()
			return
		}
		inFlight <- string(res)
	}()
	<-entered
	if err := old.StopListening(); err != nil {
		t.Fatal(err)
	}
	serve(t, dir, func(ctx context.Context, req Request) (any, error) { return "new", nil })
	if res, err := Call(ctx, dir, Request{Op: "status"}); err != nil || string(res) != `"new"` {
		t.Errorf("a new caller: got %s (%v), want the successor's \"new\"", res, err)
	}
	letGo()
	if got := <-inFlight; got != `"old"` {
		t.Errorf("the request in flight: got %s, want the predecessor's \"old\"", got)
	}
}
