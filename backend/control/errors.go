package control

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

// Sentinel errors, one per code. Handlers wrap them (fmt.Errorf("%w: ...",
// control.ErrNoSuchBackend)); Call returns a *RemoteError that matches the
// same sentinel.
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

// sentinels maps codes to their errors; CodeCanceled maps to context's.
var sentinels = map[Code]error{
	CodeBadRequest:    ErrBadRequest,
	CodeUnknownOp:     ErrUnknownOp,
	CodeNoSuchBackend: ErrNoSuchBackend,
	CodeBusy:          ErrBusy,
	CodeRefused:       ErrRefused,
	CodeNotReady:      ErrNotReady,
	CodeUpToDate:      ErrUpToDate,
	CodeOffline:       ErrOffline,
	CodeUnverified:    ErrUnverified,
	CodeNoSpace:       ErrNoSpace,
	CodeCanceled:      context.Canceled,
}

// CodeOf classifies a handler's error for the response.
func CodeOf(err error) Code {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeCanceled
	}
	for code, sentinel := range sentinels {
		if errors.Is(err, sentinel) {
			return code
		}
	}
	return CodeInternal
}

// RemoteError is an error the instance answered with. It matches the
// sentinel of its code under errors.Is.
type RemoteError struct {
	Code    Code
	Message string
}

// Error returns the message the instance sent.
func (e *RemoteError) Error() string { return e.Message }

// Unwrap returns the sentinel of the error's code (nil for CodeInternal and
// unknown codes).
func (e *RemoteError) Unwrap() error { return sentinels[e.Code] }
