// Package errkind is the vocabulary of error kinds that survive the control
// channel: a Code per kind, a sentinel per code, and RemoteError, which a
// caller gets back and branches on with errors.Is as if the error had never
// left the instance. The channel (backend/control) carries the code; the
// launcher's handlers and the update package's errors wrap the sentinels.
package errkind

import (
	"context"
	"errors"
)

// Code names the kind of an error across the channel, so that a caller can
// branch on it with errors.Is as if the error had never left the process.
type Code string

// Error codes. An error that matches none of the sentinels travels as
// CodeInternal, with its message.
const (
	CodeBadRequest    Code = "bad-request"     // malformed request or arguments
	CodeUnknownOp     Code = "unknown-op"      // an operation this instance does not know
	CodeNoSuchBackend Code = "no-such-backend" // Request.Backend names no backend
	CodeBusy          Code = "busy"            // another exclusive operation (a handoff) is under way
	CodeRefused       Code = "refused"         // understood, but not allowed in this state
	CodeNotReady      Code = "not-ready"       // nothing is ready to do it yet (no page to open)
	CodeCanceled      Code = "canceled"        // the request's context ended first
	CodeUpToDate      Code = "up-to-date"      // no newer version to update to
	CodeOffline       Code = "offline"         // a server the instance needs could not be reached
	CodeUnverified    Code = "unverified"      // downloaded data failed its check (signature, checksum, smoke test)
	CodeNoSpace       Code = "no-space"        // the disk is full
	CodeInternal      Code = "internal"
)

// Sentinel errors, one per code: the one vocabulary of error kinds, which
// the launcher's handlers wrap (fmt.Errorf("%w: ...", ErrNoSuchBackend),
// or Kind for an error with words of its own) and protocol.UpdateError
// gives the update package's errors. control.Call returns a *RemoteError
// that matches the same sentinel.
var (
	ErrBadRequest    = errors.New("bad request")
	ErrUnknownOp     = errors.New("unknown operation")
	ErrNoSuchBackend = errors.New("no such backend")
	ErrBusy          = errors.New("busy")
	ErrRefused       = errors.New("refused")
	ErrNotReady      = errors.New("not ready")
	ErrUpToDate      = errors.New("up to date")
	ErrOffline       = errors.New("offline")
	ErrUnverified    = errors.New("unverified")
	ErrNoSpace       = errors.New("no space left")
)

// codes pairs each code with its sentinel, in the order CodeOf tries them:
// an error that wraps two kinds (an update refused while a handoff is
// under way, a download that failed its check for want of disk) travels as
// the first it matches. The request's own end comes first (nothing else
// matters once the caller is gone), then the caller's mistakes (they fix
// their words), then the instance's state and the update's outcomes, most
// specific first: busy (try again soon) before up to date (nothing to do)
// before refused (not in this state); no space (the cause) before
// unverified (its symptom); offline, which a retry may cure, last.
var codes = []struct {
	code     Code
	sentinel error
}{
	{CodeCanceled, context.Canceled},
	{CodeCanceled, context.DeadlineExceeded},
	{CodeBadRequest, ErrBadRequest},
	{CodeUnknownOp, ErrUnknownOp},
	{CodeNoSuchBackend, ErrNoSuchBackend},
	{CodeBusy, ErrBusy},
	{CodeUpToDate, ErrUpToDate},
	{CodeRefused, ErrRefused},
	{CodeNotReady, ErrNotReady},
	{CodeNoSpace, ErrNoSpace},
	{CodeUnverified, ErrUnverified},
	{CodeOffline, ErrOffline},
}

// CodeOf classifies a handler's error for the response: the code of the
// first sentinel in the codes list that err matches, CodeInternal when
// none does, "" for nil. The same error always gets the same code.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	for _, c := range codes {
		if errors.Is(err, c.sentinel) {
			return c.code
		}
	}
	return CodeInternal
}

// sentinelOf returns the sentinel of code: the first listed for it (nil
// for CodeInternal and unknown codes).
func sentinelOf(code Code) error {
	for _, c := range codes {
		if c.code == code {
			return c.sentinel
		}
	}
	return nil
}

// Kind returns an error of the given kind (one of the sentinels above)
// that reads as msg alone: a sentinel of its own words that travels as a
// control code without the kind's words in its message.
func Kind(kind error, msg string) error { return &kindError{kind: kind, msg: msg} }

// kindError is an error of Kind.
type kindError struct {
	kind error
	msg  string
}

// Error is the error's own words.
func (e *kindError) Error() string { return e.msg }

// Unwrap returns the kind, for errors.Is.
func (e *kindError) Unwrap() error { return e.kind }

// RemoteError is an error the instance answered with. It matches the
// sentinel of its code under errors.Is.
type RemoteError struct {
	Code    Code
	Message string
}

// Error is the message the instance answered with.
func (e *RemoteError) Error() string { return e.Message }

// Unwrap returns the sentinel of the error's code (nil for CodeInternal and
// unknown codes).
func (e *RemoteError) Unwrap() error { return sentinelOf(e.Code) }
