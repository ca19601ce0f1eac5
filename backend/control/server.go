package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"hermes-desktop/contract/errkind"
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
	ln   net.Listener // a *net.UnixListener on Unix, a named pipe on Windows
	log  *slog.Logger

	wg        sync.WaitGroup // one per accepted connection and the accept loop
	closing   chan struct{}  // closed by Close: ends Serve and cancels requests in flight
	closeOnce sync.Once
}

// Listen opens the control channel of stateDir. The caller must hold the
// single-instance lock: that is what makes taking over what a dead or
// departing instance left safe (a stale socket on Unix, a pipe that only a
// predecessor's requests in flight keep open on Windows). Anything else at
// the address (a file that is not a socket, a pipe of another user, a pipe
// someone listens on) is refused, never removed or joined.
func Listen(stateDir string, log *slog.Logger) (*Server, error) {
	path, err := address(stateDir)
	if err != nil {
		return nil, err
	}
	ln, err := listen(path)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{path: path, ln: ln, log: log, closing: make(chan struct{})}, nil
}

// Path returns the channel's address: the socket's path on Unix, the
// pipe's name on Windows.
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
		conn, err := s.ln.Accept()
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

func (s *Server) serveConn(ctx context.Context, conn net.Conn, h Handler) {
	defer conn.Close()
	// The peer is checked before anything is answered: before its request
	// is read where the OS tells (a Unix socket's credentials), after where
	// it tells only then (a Windows pipe's client, known by "the security
	// context of the last message read from the pipe").
	if err := checkPeerBeforeRead(conn); err != nil {
		s.log.Warn("control: refused connection", "err", err)
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var req Request
	decodeErr := json.NewDecoder(io.LimitReader(conn, maxMessage)).Decode(&req)
	if err := checkPeerAfterRead(conn); err != nil {
		s.log.Warn("control: refused connection", "err", err)
		return
	}
	if decodeErr != nil {
		writeResponse(conn, Response{Error: fmt.Sprintf("bad request: %v", decodeErr), Code: errkind.CodeBadRequest})
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
		resp.Error, resp.Code = err.Error(), errkind.CodeOf(err)
	} else if result != nil {
		raw, merr := json.Marshal(result)
		if merr != nil {
			resp = Response{Error: fmt.Sprintf("encode result: %v", merr), Code: errkind.CodeInternal}
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
// file (on Windows: closes the pipe instance that waits for a client),
// without waiting for the requests in flight (one of which may be the
// caller's own). A successor may Listen on the same state dir right after.
func (s *Server) StopListening() error {
	err := s.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Close stops accepting as StopListening does, cancels the requests in
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
