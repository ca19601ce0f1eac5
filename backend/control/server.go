package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"
)

// Handler answers control requests. The returned value is encoded as the
// response's Result; a Deferred result also runs its Then after the answer
// is written.
type Handler interface {
	HandleControl(ctx context.Context, req Request) (any, error)
}

// Deferred is a result with an action to run once the answer has been
// written to the caller (a launcher that exits after answering a handoff).
type Deferred struct {
	Result any
	Err    error // answered as the error, Then still runs
	Then   func()
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req Request) (any, error)

// HandleControl calls f.
func (f HandlerFunc) HandleControl(ctx context.Context, req Request) (any, error) { return f(ctx, req) }

// Server accepts control connections.
type Server struct {
	path string
	ln   *net.UnixListener
	log  *slog.Logger

	wg        sync.WaitGroup // one per accepted connection and the accept loop
	closing   chan struct{}  // closed by Close: ends Serve and cancels requests in flight
	closeOnce sync.Once
}

// Listen creates the control socket in stateDir. The caller must hold the
// single-instance lock: that is what makes removing a stale socket left by a
// dead instance safe. Anything at the path that is not a socket is refused,
// never removed.
func Listen(stateDir string, log *slog.Logger) (*Server, error) {
	path := SocketPath(stateDir)
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("control: %s exists and is not a socket; move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("control: remove stale socket: %w", err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control: chmod %s: %w", path, err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{path: path, ln: ln, log: log, closing: make(chan struct{})}, nil
}

// Path returns the socket path.
func (s *Server) Path() string { return s.path }

// Serve accepts connections until ctx ends or Close is called. Each request
// runs in its own goroutine, owned by the server and awaited by Close; its
// context ends with ctx or at Close.
func (s *Server) Serve(ctx context.Context, h Handler) {
	ctx, cancel := context.WithCancel(ctx)
	s.wg.Add(1)
	go func() { // ends with ctx or at Close, whichever comes first
		defer s.wg.Done()
		select {
		case <-ctx.Done():
		case <-s.closing:
			cancel()
		}
		s.ln.Close()
	}()
	for {
		conn, err := s.ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.log.Warn("control: accept", "err", err)
			time.Sleep(10 * time.Millisecond) // EMFILE and friends: do not spin
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(ctx, conn, h)
		}()
	}
}

func (s *Server) serveConn(ctx context.Context, conn *net.UnixConn, h Handler) {
	defer conn.Close()
	if err := checkPeer(conn); err != nil {
		s.log.Warn("control: refused connection", "err", err)
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var req Request
	if err := json.NewDecoder(io.LimitReader(conn, maxMessage)).Decode(&req); err != nil {
		writeResponse(conn, Response{Error: fmt.Sprintf("bad request: %v", err), Code: CodeBadRequest})
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	result, err := h.HandleControl(ctx, req)
	var then func()
	if d, ok := result.(Deferred); ok {
		result, then = d.Result, d.Then
		if d.Err != nil {
			err = d.Err
		}
	}
	if then != nil {
		defer then()
	}
	resp := Response{OK: err == nil}
	if err != nil {
		resp.Error, resp.Code = err.Error(), CodeOf(err)
	} else if result != nil {
		raw, merr := json.Marshal(result)
		if merr != nil {
			resp = Response{Error: fmt.Sprintf("encode result: %v", merr), Code: CodeInternal}
		} else {
			resp.Result = raw
		}
	}
	writeResponse(conn, resp)
}

func writeResponse(conn net.Conn, resp Response) {
	_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_ = json.NewEncoder(conn).Encode(resp)
}

// StopListening stops accepting new connections and removes the socket
// file, without waiting for the requests in flight (one of which may be the
// caller's own).
func (s *Server) StopListening() error {
	err := s.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Close stops accepting, removes the socket file, cancels the requests in
// flight and waits for them to finish. It is safe on its own, whether or
// not Serve's context was cancelled first. A handler that is itself waiting
// for Close would deadlock, so handlers must not call it.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closing)
		err = s.ln.Close()
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
	})
	s.wg.Wait()
	return err
}
