package cmdline

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// splitCase is one command line and what Split makes of it.
type splitCase struct {
	in   string
	want []string
	ok   bool
}

// Lines every system reads alike; each system adds its own (splitCases).
var commonSplitCases = []splitCase{
	{"hermes serve --port 0", []string{"hermes", "serve", "--port", "0"}, true},
	{`python3 -m http.server --bind 127.0.0.1 0`, []string{"python3", "-m", "http.server", "--bind", "127.0.0.1", "0"}, true},
	{`"/Applications/My App/hermes" serve`, []string{"/Applications/My App/hermes", "serve"}, true},
	{`sh -c "echo \"hi\""`, []string{"sh", "-c", `echo "hi"`}, true},
	{`$HOME/x *`, []string{"$HOME/x", "*"}, true},
	{`"unterminated`, nil, false},
	{"   ", nil, false},
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range append(commonSplitCases, splitCases...) {
		got, err := Split(tc.in)
		if (err == nil) != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q): got %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// Join quotes what needs it in the system's own way, and reads back.
func TestJoinCommand(t *testing.T) {
	for _, tc := range joinCases {
		if got := Join(tc.argv); got != tc.want {
			t.Errorf("Join(%q): got %s, want %s", tc.argv, got, tc.want)
		}
		if back, err := Split(tc.want); err != nil || !reflect.DeepEqual(back, tc.argv) {
			t.Errorf("Split(%s): got %q, %v; want %q", tc.want, back, err, tc.argv)
		}
	}
}

func FuzzSplitJoinCommand(f *testing.F) {
	f.Add("a\x00b c\x00'q'\x00\"d\"\x00")
	f.Fuzz(func(t *testing.T, joined string) {
		argv := splitNUL(joined)
		for _, a := range argv {
			for i := 0; i < len(a); i++ {
				if a[i] == 0 {
					return
				}
			}
		}
		if len(argv) == 0 {
			return
		}
		got, err := Split(Join(argv))
		if err != nil || !reflect.DeepEqual(got, argv) {
			t.Fatalf("round trip of %q: got %q, %v", argv, got, err)
		}
	})
}

// splitNUL splits a fuzz input into argv at NUL bytes.
func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// Join and Split invert each other on arguments made of the characters
// each system's quoting treats specially, on every system (the fuzz target
// runs on Linux only; this runs in the Windows lane too).
func TestJoinSplitRoundTripTricky(t *testing.T) {
	const alphabet = "a \t\"'\\$"
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 5000; n++ {
		argv := make([]string, 1+r.IntN(4))
		for i := range argv {
			b := make([]byte, r.IntN(6))
			for j := range b {
				b[j] = alphabet[r.IntN(len(alphabet))]
			}
			argv[i] = string(b)
		}
		joined := Join(argv)
		if got, err := Split(joined); err != nil || !reflect.DeepEqual(got, argv) {
			t.Fatalf("Split(Join(%q)) = Split(%s): got %q, %v", argv, joined, got, err)
		}
	}
}

// A refused line says why in words a person reads: the settings page and
// the Add backend form show the reason under the field (issue 23).
func TestSplitErrorsReadAsWords(t *testing.T) {
	cases := []struct {
		in   string
		want error
	}{
		{`"unterminated`, ErrOpenDoubleQuote},
		{"   ", ErrEmpty},
	}
	for _, tc := range cases {
		_, err := Split(tc.in)
		if !errors.Is(err, tc.want) {
			t.Errorf("Split(%q): got %v, want %v", tc.in, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "cmdline") {
			t.Errorf("Split(%q): got %q, want no package name in what a person reads", tc.in, err)
		}
	}
}
