// Package transport is the vocabulary of the connections remote backends
// run over (DESIGN "Remote backends (SSH)"): a Transport to one host, its
// Status, the Channel of a long remote command and the Target of a
// forward. backend/ssh (one ssh session per host carrying our multiplexer)
// and backend/wsl (wsl.exe per command) implement it; backend/remote uses
// nothing else. A leaf: it imports nothing of the project.
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// Transport is the connection to one host. Its methods are safe for
// concurrent use.
type Transport interface {
	// Connect returns once commands can run, or with why they cannot.
	Connect(ctx context.Context) error
	// Status is the connection's state as a person reads it.
	Status() Status
	// Run runs argv with stdin (nil: none) and returns its stdout; the
	// command is killed where it runs when timeout ends, and Run's error
	// wraps ErrTimeout then. A failed command's error has its exit status
	// (ExitCode).
	Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error)
	// Start runs a long command whose stdin and stdout are ours, without
	// a timeout; ctx bounds the start only. Its stdin is its lifeline:
	// it closes when the channel or the connection ends.
	Start(ctx context.Context, argv ...string) (*Channel, error)
	// Forward serves 127.0.0.1:local here, each connection a stream to
	// to there, until Unforward or Close (re-served after a reconnect).
	Forward(ctx context.Context, local int, to Target) error
	// Unforward ends the Forward of local and its connections.
	Unforward(ctx context.Context, local int) error
	// Dial opens one stream to to.
	Dial(ctx context.Context, to Target) (net.Conn, error)
	// Close ends the connection, its forwards and channels. Idempotent.
	Close() error
}

// ErrClosed means the Transport was closed.
var ErrClosed = errors.New("transport: closed")

// ErrRefusedThere means the remote core answered a request with an
// error (a dial to a socket nobody listens on, a command it cannot run):
// the connection itself works.
var ErrRefusedThere = errors.New("transport: refused on the remote")

// ErrTimeout means a remote command ran past its timeout and was killed
// where it ran.
var ErrTimeout = errors.New("transport: remote command timed out")

// Target is where a forward or a dial goes on the remote: 127.0.0.1:Port,
// or the unix socket Path when Socket is set.
type Target struct {
	Port   int
	Socket string
}

// String names the target as a message does.
func (t Target) String() string {
	if t.Socket != "" {
		return "unix:" + t.Socket
	}
	return "127.0.0.1:" + strconv.Itoa(t.Port)
}

// Check says why t is no target: neither or both of Port and Socket, or a
// port out of range.
func (t Target) Check() error {
	switch {
	case t.Socket != "" && t.Port != 0:
		return fmt.Errorf("transport: target %v: both a port and a socket", t)
	case t.Socket == "" && (t.Port <= 0 || t.Port >= 1<<16):
		return fmt.Errorf("transport: target port %d: not a port", t.Port)
	}
	return nil
}

// ExitError is a remote command's non-zero exit status.
type ExitError struct {
	Code int // -1 when a signal ended it
	// Signal names the signal that ended it, if one did.
	Signal string
}

// Error says how the command ended.
func (e *ExitError) Error() string {
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	return "exit status " + strconv.Itoa(e.Code)
}

// ExitCode is the exit status (the name os/exec's ExitError has, so that
// callers read both alike).
func (e *ExitError) ExitCode() int { return e.Code }

// ExitCode is the exit status of the remote command err reports (an
// *ExitError, an *exec.ExitError), or -1.
func ExitCode(err error) int {
	var e interface{ ExitCode() int }
	if errors.As(err, &e) {
		return e.ExitCode()
	}
	return -1
}

// Permanent marks err as one that retrying cannot help (the host refuses
// to run our core, say): a connect loop stops at once.
func Permanent(err error) error { return permanentError{err} }

type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// IsPermanent reports whether err, or one it wraps, was marked Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}
