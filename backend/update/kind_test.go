package update

import (
	"errors"
	"fmt"
	"testing"

	"hermes-desktop/backend/control"
)

// An update error keeps its own sentinel and words and is of the control
// kind it travels as over the socket (once a hand mapping in selfupdate).
func TestErrorKinds(t *testing.T) {
	cases := []struct {
		err  error
		kind error
		code control.Code
	}{
		{ErrUpToDate, control.ErrUpToDate, control.CodeUpToDate},
		{ErrNoBuild, control.ErrUpToDate, control.CodeUpToDate},
		{ErrDisabled, control.ErrRefused, control.CodeRefused},
		{ErrBuildOff, control.ErrRefused, control.CodeRefused},
		{ErrManaged, control.ErrRefused, control.CodeRefused},
		{ErrSignature, control.ErrUnverified, control.CodeUnverified},
		{ErrChecksum, control.ErrUnverified, control.CodeUnverified},
		{ErrSmoke, control.ErrUnverified, control.CodeUnverified},
		{ErrFeed, control.ErrUnverified, control.CodeUnverified},
		{ErrInsecure, control.ErrUnverified, control.CodeUnverified},
		{ErrOffline, control.ErrOffline, control.CodeOffline},
		{ErrDiskFull, control.ErrNoSpace, control.CodeNoSpace},
		{ErrSwap, nil, control.CodeInternal},
	}
	for _, tc := range cases {
		err := fmt.Errorf("update: %w: details", tc.err)
		if tc.kind != nil && !errors.Is(err, tc.kind) {
			t.Errorf("%v: not of kind %v", tc.err, tc.kind)
		}
		if got := control.CodeOf(err); got != tc.code {
			t.Errorf("%v: code: got %q, want %q", tc.err, got, tc.code)
		}
		if want := "update: " + tc.err.Error() + ": details"; err.Error() != want {
			t.Errorf("words: got %q, want %q", err, want)
		}
	}
	// Two update errors of one kind stay apart for Reason.
	if errors.Is(ErrManaged, ErrDisabled) || Reason(ErrManaged) != "package-managed" {
		t.Errorf("ErrManaged: is ErrDisabled %v, reason %q", errors.Is(ErrManaged, ErrDisabled), Reason(ErrManaged))
	}
	// A disk that fills during a download whose check then fails travels
	// as the cause.
	if got := control.CodeOf(errors.Join(ErrChecksum, ErrDiskFull)); got != control.CodeNoSpace {
		t.Errorf("checksum and disk full: got %q, want %q", got, control.CodeNoSpace)
	}
}
