package protocol

import (
	"errors"
	"fmt"
	"testing"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/update"
)

// An update error keeps its own sentinel and words and, mapped by
// UpdateError, is of the control kind it travels as over the socket.
func TestUpdateErrorKinds(t *testing.T) {
	cases := []struct {
		err  error
		kind error
		code control.Code
	}{
		{update.ErrUpToDate, control.ErrUpToDate, control.CodeUpToDate},
		{update.ErrNoBuild, control.ErrUpToDate, control.CodeUpToDate},
		{update.ErrDisabled, control.ErrRefused, control.CodeRefused},
		{update.ErrBuildOff, control.ErrRefused, control.CodeRefused},
		{update.ErrManaged, control.ErrRefused, control.CodeRefused},
		{update.ErrSignature, control.ErrUnverified, control.CodeUnverified},
		{update.ErrChecksum, control.ErrUnverified, control.CodeUnverified},
		{update.ErrSmoke, control.ErrUnverified, control.CodeUnverified},
		{update.ErrFeed, control.ErrUnverified, control.CodeUnverified},
		{update.ErrInsecure, control.ErrUnverified, control.CodeUnverified},
		{update.ErrOffline, control.ErrOffline, control.CodeOffline},
		{update.ErrDiskFull, control.ErrNoSpace, control.CodeNoSpace},
		{update.ErrSwap, nil, control.CodeInternal},
	}
	for _, tc := range cases {
		err := UpdateError(fmt.Errorf("update: %w: details", tc.err))
		if tc.kind != nil && !errors.Is(err, tc.kind) {
			t.Errorf("%v: not of kind %v", tc.err, tc.kind)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: lost its own sentinel", tc.err)
		}
		if got := control.CodeOf(err); got != tc.code {
			t.Errorf("%v: code: got %q, want %q", tc.err, got, tc.code)
		}
		if want := "update: " + tc.err.Error() + ": details"; err.Error() != want {
			t.Errorf("words: got %q, want %q", err, want)
		}
	}
	// A disk that fills during a download whose check then fails travels
	// as the cause.
	if got := control.CodeOf(UpdateError(errors.Join(update.ErrChecksum, update.ErrDiskFull))); got != control.CodeNoSpace {
		t.Errorf("checksum and disk full: got %q, want %q", got, control.CodeNoSpace)
	}
	// An error already of a kind (a busy instance) keeps it first.
	busy := fmt.Errorf("%w: a handoff is under way", control.ErrBusy)
	if got := control.CodeOf(UpdateError(busy)); got != control.CodeBusy {
		t.Errorf("busy: got %q, want %q", got, control.CodeBusy)
	}
	if UpdateError(nil) != nil {
		t.Error("nil: got an error, want nil")
	}
}
