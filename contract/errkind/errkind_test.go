package errkind

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// An error that wraps two kinds gets the same code every time: the first
// of the codes list, whichever order it wraps them in (CodeOf once ranged
// over a map, and such an error got either code at random).
func TestCodeOfTwoKinds(t *testing.T) {
	cases := []struct {
		err  error
		want Code
	}{
		{errors.Join(ErrOffline, ErrBusy), CodeBusy},
		{errors.Join(ErrBusy, ErrOffline), CodeBusy},
		{fmt.Errorf("%w: %w", ErrUnverified, ErrNoSpace), CodeNoSpace},
		{fmt.Errorf("%w: %w", ErrRefused, ErrUpToDate), CodeUpToDate},
		{fmt.Errorf("%w: %w", ErrRefused, ErrBadRequest), CodeBadRequest},
		{fmt.Errorf("%w: %w", ErrUpToDate, context.Canceled), CodeCanceled},
		{Kind(ErrUnverified, "bad signature"), CodeUnverified},
		{errors.Join(Kind(ErrNoSpace, "disk full"), Kind(ErrOffline, "offline")), CodeNoSpace},
	}
	for _, tc := range cases {
		for i := range 50 { // a map's order would differ between some of these
			if got := CodeOf(tc.err); got != tc.want {
				t.Fatalf("%v (try %d): got %q, want %q", tc.err, i, got, tc.want)
			}
		}
	}
}

// Kind's error reads as its own words and matches its kind.
func TestKind(t *testing.T) {
	err := fmt.Errorf("update: %w: details", Kind(ErrNoSpace, "disk full"))
	if err.Error() != "update: disk full: details" || !errors.Is(err, ErrNoSpace) || CodeOf(err) != CodeNoSpace {
		t.Errorf("got %q (is ErrNoSpace %v, code %q)", err, errors.Is(err, ErrNoSpace), CodeOf(err))
	}
}
