package cmdline

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// remoteArgs are arguments a remote command may carry: paths under a home
// with spaces and quotes, shell syntax that must stay text.
var remoteArgs = []string{
	"plain", "", " ", "it's", `say "hi"`, `a\b`, "$HOME", "`id`", "$(id)", "*", "~", "a;b",
	"new\nline", "tab\there", "'", "''", `\'`, "!x", "%s", "-n", "a b  c", "ünï",
}

// TestQuoteRemoteShell runs /bin/sh on JoinRemote's line and checks that
// the shell hands the command exactly argv, with nothing expanded.
func TestQuoteRemoteShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on this system")
	}
	line := JoinRemote(append([]string{"printf", `%s\0`}, remoteArgs...))
	out, err := exec.Command(sh, "-c", line).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, remoteArgs) {
		t.Errorf("sh read %q\nfrom %s,\nwant %q", got, line, remoteArgs)
	}
}

func TestQuoteRemote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"/home/a/.hermes-desktop/x", "/home/a/.hermes-desktop/x"},
		{"", "''"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a b", "'a b'"},
	} {
		if got := QuoteRemote(tc.in); got != tc.want {
			t.Errorf("QuoteRemote(%q): got %s, want %s", tc.in, got, tc.want)
		}
	}
	if bytes.ContainsAny([]byte(remoteSafe), " '\"\\$`;&|<>(){}[]*?~#!\n\t") {
		t.Errorf("remoteSafe holds a byte the shell reads: %q", remoteSafe)
	}
}
