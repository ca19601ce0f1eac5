package remotecore

import (
	"errors"
	"strings"
	"testing"
)

func TestParseUname(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want Platform
	}{
		{"Linux x86_64\n", Platform{"linux", "amd64"}},
		{"Linux aarch64\n", Platform{"linux", "arm64"}},
		{"Linux arm64", Platform{"linux", "arm64"}},
		{"Darwin arm64\n", Platform{"darwin", "arm64"}},
		{"Darwin x86_64\n", Platform{"darwin", "amd64"}},
		{"  Linux   x86_64  \r\n", Platform{"linux", "amd64"}},
	} {
		got, err := ParseUname(tc.out)
		if err != nil || got != tc.want {
			t.Errorf("ParseUname(%q): got %v, %v, want %v", tc.out, got, err, tc.want)
		}
	}
}

func TestParseUnameRefuses(t *testing.T) {
	for _, out := range []string{
		"Linux armv7l", "Linux i686", "Linux aarch64_be", "Linux riscv64", "FreeBSD amd64",
		"MINGW64_NT-10.0 x86_64", "Linux", "", "Linux x86_64 extra", "linux x86_64", "sh: uname: not found",
	} {
		_, err := ParseUname(out)
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("ParseUname(%q): got %v, want ErrUnsupported", out, err)
			continue
		}
		// The user sees what the remote said, to know why.
		if !strings.Contains(err.Error(), strings.TrimSpace(out)) {
			t.Errorf("ParseUname(%q): %q does not quote the answer", out, err)
		}
	}
}

// TestPlatformsRoundTrip: every platform we build is one uname names and
// one a cores directory can hold.
func TestPlatformsRoundTrip(t *testing.T) {
	uname := map[Platform]string{
		{"linux", "amd64"}: "Linux x86_64", {"linux", "arm64"}: "Linux aarch64",
		{"darwin", "arm64"}: "Darwin arm64", {"darwin", "amd64"}: "Darwin x86_64",
	}
	for _, p := range Platforms {
		got, err := ParseUname(uname[p])
		if err != nil || got != p {
			t.Errorf("%s: ParseUname(%q): got %v, %v", p, uname[p], got, err)
		}
		if back, ok := platformOf(fileName(p)); !ok || back != p {
			t.Errorf("%s: platformOf(%q): got %v, %v", p, fileName(p), back, ok)
		}
	}
}

func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"1.2.3", "v0.4.0-12-gabcdef0-dirty", "dev", "1.0+git.5"} {
		if err := checkVersion(v); err != nil {
			t.Errorf("checkVersion(%q): %v", v, err)
		}
	}
	for _, v := range []string{"", ".", "..", "a/b", "../x", "a b", "$(id)", "x'y", strings.Repeat("1", 129)} {
		if err := checkVersion(v); err == nil {
			t.Errorf("checkVersion(%q): got nil, want an error", v)
		}
	}
}
