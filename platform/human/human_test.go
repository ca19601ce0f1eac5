package human

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{time.Millisecond, "1 ms"},
		{100 * time.Millisecond, "100 ms"},
		{5 * time.Second, "5 s"},
		{1500 * time.Millisecond, "1 s 500 ms"},
		{3 * time.Minute, "3 min"},
		{90 * time.Second, "1 min 30 s"},
		{10 * time.Minute, "10 min"},
		{time.Hour + 5*time.Second, "1 h"},
		{2*time.Hour + 5*time.Minute + 7*time.Second, "2 h 5 min"},
		{7 * 24 * time.Hour, "7 d"},
		{-2 * time.Second, "-2 s"},
	}
	for _, tc := range cases {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v): got %q, want %q", tc.d, got, tc.want)
		}
	}
}
