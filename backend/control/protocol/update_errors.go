package protocol

import (
	"errors"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/update"
)

// updateKinds pairs each of the update package's sentinels with the
// control kind it travels as over the socket. The update package knows
// nothing of the channel; this table is the one place its errors meet the
// channel's codes. An update error of no kind (update.ErrSwap) travels as
// control.CodeInternal.
var updateKinds = []struct{ err, kind error }{
	{update.ErrDisabled, control.ErrRefused},
	{update.ErrManaged, control.ErrRefused},
	{update.ErrUpToDate, control.ErrUpToDate},
	{update.ErrOffline, control.ErrOffline},
	{update.ErrFeed, control.ErrUnverified},
	{update.ErrSignature, control.ErrUnverified},
	{update.ErrChecksum, control.ErrUnverified},
	{update.ErrInsecure, control.ErrUnverified},
	{update.ErrSmoke, control.ErrUnverified},
	{update.ErrDiskFull, control.ErrNoSpace},
}

// UpdateError gives err the control kind of every update sentinel it
// wraps, so that control.CodeOf answers the code the update's failure
// travels as; its words stay err's. Nil stays nil.
func UpdateError(err error) error {
	if err == nil {
		return nil
	}
	var kinds []error
	for _, k := range updateKinds {
		if errors.Is(err, k.err) {
			kinds = append(kinds, k.kind)
		}
	}
	if len(kinds) == 0 {
		return err
	}
	return &kindedError{err: err, kinds: kinds}
}

// kindedError is an update error with the control kinds it travels as.
type kindedError struct {
	err   error
	kinds []error
}

// Error is the update error's own words.
func (e *kindedError) Error() string { return e.err.Error() }

// Unwrap returns the update error and its kinds, for errors.Is.
func (e *kindedError) Unwrap() []error { return append([]error{e.err}, e.kinds...) }
