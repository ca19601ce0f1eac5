package proc

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMarker(t *testing.T) {
	cases := []struct {
		in     string
		scheme string
		ok     bool
	}{
		{"linux:12345", "linux", true},
		{"winms:1732880000123", "winms", true},
		{"ps:Sun Nov 29 17:38:18 2026", "ps", true},
		{"darwin:Sun Nov 29 17:38:18 2026", "darwin", true},
		{"kinfo:1764437898.012345", "kinfo", true},
		{"kinfo:1764437898", "", false},
		{"kinfo:1764437898.12", "", false},
		{"linux:", "", false},
		{"linux:12a", "", false},
		{"linux:-1", "", false},
		{"linux:007", "", false},
		{"12345", "", false},
		{"plan9:1", "", false},
		{"ps:bad\x00nul", "", false},
		{"ps:" + strings.Repeat("x", 200), "", false},
	}
	for _, tc := range cases {
		scheme, _, err := ParseMarker(tc.in)
		if (err == nil) != tc.ok || scheme != tc.scheme {
			t.Errorf("ParseMarker(%q): got %q, %v; want %q, ok=%v", tc.in, scheme, err, tc.scheme, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadMarker) {
			t.Errorf("ParseMarker(%q): error %v is not ErrBadMarker", tc.in, err)
		}
	}
}

func FuzzParseMarker(f *testing.F) {
	for _, s := range []string{"linux:1", "winms:2", "ps:Mon Jan  2 15:04:05 2006", "darwin:x", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		scheme, value, err := ParseMarker(s)
		if err != nil {
			return
		}
		if scheme+":"+value != s {
			t.Fatalf("ParseMarker(%q) = %q, %q: does not reassemble", s, scheme, value)
		}
	})
}

func TestIdentitySame(t *testing.T) {
	a := Identity{PID: 10, Start: "linux:5", BootID: "x"}
	cases := []struct {
		b    Identity
		want bool
	}{
		{Identity{PID: 10, Start: "linux:5", BootID: "x"}, true},
		{Identity{PID: 10, Start: "linux:5"}, true},
		{Identity{PID: 10, Start: "linux:6", BootID: "x"}, false},
		{Identity{PID: 11, Start: "linux:5", BootID: "x"}, false},
		{Identity{PID: 10, Start: "linux:5", BootID: "y"}, false},
	}
	for _, tc := range cases {
		if got := a.Same(tc.b); got != tc.want {
			t.Errorf("%v.Same(%v): got %v, want %v", a, tc.b, got, tc.want)
		}
	}
	if (Identity{PID: 1}).Same(Identity{PID: 1}) {
		t.Errorf("identities without a marker must never match")
	}
}

func TestDescendantsSkipsImpossibleParents(t *testing.T) {
	table := Table{
		{PID: 1, PPID: 0},
		{PID: 10, PPID: 1},
		{PID: 11, PPID: 10},
		{PID: 12, PPID: 11},
		{PID: 20, PPID: 1},
	}
	var got []int
	for _, p := range table.Descendants(10) {
		got = append(got, p.PID)
	}
	if len(got) != 2 || got[0] != 11 || got[1] != 12 {
		t.Errorf("Descendants(10): got %v, want [11 12]", got)
	}
}
