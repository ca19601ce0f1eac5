package update

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
		a, err := ParseVersion(tc.a)
		if err != nil {
			t.Fatalf("%s: %v", tc.a, err)
		}
		b, err := ParseVersion(tc.b)
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
		if _, err := ParseVersion(s); err == nil {
			t.Errorf("ParseVersion(%q): got no error, want one", s)
		}
	}
	if Newer("dev", "1.0.0") || Newer("1.0.0", "dev") {
		t.Error("an unparsable version must never be newer, nor be overtaken")
	}
}
