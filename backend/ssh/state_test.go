package ssh

import (
	"errors"
	"testing"
	"time"
)

func TestStatusString(t *testing.T) {
	for _, c := range []struct {
		s    Status
		want string
	}{
		{Status{}, "not connected"},
		{Status{State: Connecting, Attempt: 1}, "connecting"},
		{Status{State: Connected}, "connected"},
		{Status{State: Reconnecting, Attempt: 3}, "reconnecting (attempt 3)"},
		// Half a second of slack: the rendering runs a moment after Next was set.
		{Status{State: Reconnecting, Attempt: 3, Next: time.Now().Add(7500 * time.Millisecond)}, "reconnecting (attempt 3, next in 8 s)"},
		{Status{State: Failed, Err: errors.New("ssh: boom")}, "failed: ssh: boom"},
		{Status{State: Closed}, "closed"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("%#v: got %q, want %q", c.s, got, c.want)
		}
	}
}

func TestBackoffDoublesToTheCap(t *testing.T) {
	o := Options{MinBackoff: time.Second, MaxBackoff: 8 * time.Second}.withDefaults()
	want := []time.Duration{1, 2, 4, 8, 8, 8}
	for n, w := range want {
		if got := o.backoff(n + 1); got != w*time.Second {
			t.Errorf("backoff(%d): got %v, want %v", n+1, got, w*time.Second)
		}
	}
}
