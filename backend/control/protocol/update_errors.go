package protocol

import (
	"errors"

	"hermes-desktop/backend/update"
	"hermes-desktop/contract/errkind"
)

// updateKinds pairs each of the update package's sentinels with the
// control kind it travels as over the socket. The update package knows
// nothing of the channel; this table is the one place its errors meet the
// channel's codes. An update error of no kind (update.ErrSwap) travels as
// errkind.CodeInternal.
var updateKinds = []struct{ err, kind error }{
	{update.ErrDisabled, errkind.ErrRefused},
	{update.ErrManaged, errkind.ErrRefused},
	{update.ErrUpToDate, errkind.ErrUpToDate},
	{update.ErrOffline, errkind.ErrOffline},
	{update.ErrFeed, errkind.ErrUnverified},
	{update.ErrSignature, errkind.ErrUnverified},
	{update.ErrStale, errkind.ErrUnverified},
	{update.ErrChecksum, errkind.ErrUnverified},
	{update.ErrInsecure, errkind.ErrUnverified},
	{update.ErrSmoke, errkind.ErrUnverified},
	{update.ErrDiskFull, errkind.ErrNoSpace},
}

// UpdateError gives err the control kind of every update sentinel it
// wraps, so that errkind.CodeOf answers the code the update's failure
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
