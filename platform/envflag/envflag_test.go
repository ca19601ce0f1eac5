package envflag

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	cases := []struct {
		env  string
		want time.Duration
	}{
		{"", 5 * time.Second},
		{"250ms", 250 * time.Millisecond},
		{"0s", 0},
		{"-1s", 5 * time.Second},
		{"soon", 5 * time.Second},
	}
	for _, tc := range cases {
		t.Setenv("ENVFLAG_TEST", tc.env)
		if got := Duration("ENVFLAG_TEST", 5*time.Second); got != tc.want {
			t.Errorf("Duration(%q): got %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestBoolIntString(t *testing.T) {
	for env, want := range map[string]bool{"1": true, "TRUE": true, "yes": true, "on": true, "0": false, "": false, "nope": false} {
		t.Setenv("ENVFLAG_TEST", env)
		if got := Bool("ENVFLAG_TEST"); got != want {
			t.Errorf("Bool(%q): got %v, want %v", env, got, want)
		}
	}
	t.Setenv("ENVFLAG_TEST", "42")
	if got := Int("ENVFLAG_TEST", 7); got != 42 {
		t.Errorf("Int: got %d, want 42", got)
	}
	t.Setenv("ENVFLAG_TEST", "x")
	if got := Int("ENVFLAG_TEST", 7); got != 7 {
		t.Errorf("Int of junk: got %d, want 7", got)
	}
	if got := String("ENVFLAG_TEST", "d"); got != "x" {
		t.Errorf("String: got %q, want x", got)
	}
	t.Setenv("ENVFLAG_TEST", "")
	if got := String("ENVFLAG_TEST", "d"); got != "d" {
		t.Errorf("String unset: got %q, want d", got)
	}
}
