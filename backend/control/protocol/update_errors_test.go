package protocol

import (
	"errors"
	"fmt"
	"testing"

	"hermes-desktop/backend/update"
	"hermes-desktop/contract/errkind"
)

// An update error keeps its own sentinel and words and, mapped by
// UpdateError, is of the control kind it travels as over the socket.
func TestUpdateErrorKinds(t *testing.T) {
	cases := []struct {
		err  error
		kind error
		code errkind.Code
	}{
		{update.ErrUpToDate, errkind.ErrUpToDate, errkind.CodeUpToDate},
		{update.ErrNoBuild, errkind.ErrUpToDate, errkind.CodeUpToDate},
		{update.ErrRollout, errkind.ErrUpToDate, errkind.CodeUpToDate},
		{update.ErrDisabled, errkind.ErrRefused, errkind.CodeRefused},
		{update.ErrBuildOff, errkind.ErrRefused, errkind.CodeRefused},
		{update.ErrManaged, errkind.ErrRefused, errkind.CodeRefused},
		{update.ErrSignature, errkind.ErrUnverified, errkind.CodeUnverified},
		{update.ErrStale, errkind.ErrUnverified, errkind.CodeUnverified},
		{update.ErrChecksum, errkind.ErrUnverified, errkind.CodeUnverified},
		{update.ErrSmoke, errkind.ErrUnverified, errkind.CodeUnverified},
		{update.ErrFeed, errkind.ErrUnverified, errkind.CodeUnverified},
		{update.ErrInsecure, errkind.ErrUnverified, errkind.CodeUnverified},
		{update.ErrOffline, errkind.ErrOffline, errkind.CodeOffline},
		{update.ErrDiskFull, errkind.ErrNoSpace, errkind.CodeNoSpace},
		{update.ErrSwap, nil, errkind.CodeInternal},
	}
	for _, tc := range cases {
		err := UpdateError(fmt.Errorf("update: %w: details", tc.err))
		if tc.kind != nil && !errors.Is(err, tc.kind) {
			t.Errorf("%v: not of kind %v", tc.err, tc.kind)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: lost its own sentinel", tc.err)
		}
		if got := errkind.CodeOf(err); got != tc.code {
			t.Errorf("%v: code: got %q, want %q", tc.err, got, tc.code)
		}
		if want := "update: " + tc.err.Error() + ": details"; err.Error() != want {
			t.Errorf("words: got %q, want %q", err, want)
		}
	}
	// A disk that fills during a download whose check then fails travels
	// as the cause.
	if got := errkind.CodeOf(UpdateError(errors.Join(update.ErrChecksum, update.ErrDiskFull))); got != errkind.CodeNoSpace {
		t.Errorf("checksum and disk full: got %q, want %q", got, errkind.CodeNoSpace)
	}
	// An error already of a kind (a busy instance) keeps it first.
	busy := fmt.Errorf("%w: a handoff is under way", errkind.ErrBusy)
	if got := errkind.CodeOf(UpdateError(busy)); got != errkind.CodeBusy {
		t.Errorf("busy: got %q, want %q", got, errkind.CodeBusy)
	}
	if UpdateError(nil) != nil {
		t.Error("nil: got an error, want nil")
	}
}
