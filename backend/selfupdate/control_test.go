package selfupdate

import (
	"errors"
	"fmt"
	"testing"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/update"
)

// An update error keeps its own sentinel and gets the control kind it
// travels as, with its words unchanged.
func TestControlKind(t *testing.T) {
	cases := []struct {
		err  error
		kind error
	}{
		{update.ErrUpToDate, control.ErrUpToDate},
		{update.ErrDisabled, control.ErrRefused},
		{update.ErrManaged, control.ErrRefused},
		{update.ErrSignature, control.ErrUnverified},
		{update.ErrChecksum, control.ErrUnverified},
		{update.ErrSmoke, control.ErrUnverified},
		{update.ErrFeed, control.ErrUnverified},
		{update.ErrInsecure, control.ErrUnverified},
		{update.ErrOffline, control.ErrOffline},
		{update.ErrDiskFull, control.ErrNoSpace},
	}
	for _, tc := range cases {
		err := controlKind(fmt.Errorf("update: %w: details", tc.err))
		if !errors.Is(err, tc.kind) || !errors.Is(err, tc.err) || err.Error() != "update: "+tc.err.Error()+": details" {
			t.Errorf("%v: got %v (is kind %v, is own %v)", tc.err, err, errors.Is(err, tc.kind), errors.Is(err, tc.err))
		}
		if code := control.CodeOf(err); code == control.CodeInternal {
			t.Errorf("%v: travels as %q", tc.err, code)
		}
	}
	other := errors.New("handoff: the new instance exited")
	if got := controlKind(other); got != other {
		t.Errorf("an error of no update kind: got %v, want it unchanged", got)
	}
	if controlKind(nil) != nil {
		t.Error("nil is not nil")
	}
}
