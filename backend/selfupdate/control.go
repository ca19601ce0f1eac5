package selfupdate

import (
	"context"
	"errors"
	"fmt"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/update"
)

// HandleControl answers the control socket's update operations (update
// check, apply and skip); the launcher routes them here. An apply whose
// successor took the backends over is answered first, then the launcher is
// handed over (control.Deferred).
func (u *Updater) HandleControl(ctx context.Context, req control.Request) (any, error) {
	switch req.Op {
	case control.OpUpdateCheck:
		return u.Check(ctx, false)
	case control.OpUpdateApply:
		res, err := u.apply(ctx)
		if res == nil {
			return nil, err
		}
		return control.Deferred{Result: res, Err: err, Then: u.host.HandedOver}, nil
	case control.OpUpdateSkip:
		var args update.SkipArgs
		if err := req.DecodeArgs(&args); err != nil {
			return nil, err
		}
		return map[string]string{"skipped": args.Version}, u.Skip(args.Version)
	}
	return nil, fmt.Errorf("%w %q", control.ErrUnknownOp, req.Op)
}

// kindError gives an update error the control kind it travels as over the
// socket, keeping its own words (and its update sentinel).
type kindError struct{ kind, err error }

// Error is the update error's own words.
func (e kindError) Error() string { return e.err.Error() }

// Unwrap gives both the control kind and the update error to errors.Is.
func (e kindError) Unwrap() []error { return []error{e.kind, e.err} }

// controlKind maps an update error to a control kind.
func controlKind(err error) error {
	var kind error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, update.ErrUpToDate):
		kind = control.ErrUpToDate
	case errors.Is(err, update.ErrDisabled), errors.Is(err, update.ErrManaged):
		kind = control.ErrRefused
	case errors.Is(err, update.ErrDiskFull):
		kind = control.ErrNoSpace
	case errors.Is(err, update.ErrSignature), errors.Is(err, update.ErrChecksum), errors.Is(err, update.ErrSmoke),
		errors.Is(err, update.ErrFeed), errors.Is(err, update.ErrInsecure):
		kind = control.ErrUnverified
	case errors.Is(err, update.ErrOffline):
		kind = control.ErrOffline
	default:
		return err
	}
	return kindError{kind: kind, err: err}
}
