package cmdline

import (
	"reflect"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"hermes serve --port 0", []string{"hermes", "serve", "--port", "0"}, true},
		{`python3 -m http.server --bind 127.0.0.1 0`, []string{"python3", "-m", "http.server", "--bind", "127.0.0.1", "0"}, true},
		{`'/Applications/My App/hermes' serve`, []string{"/Applications/My App/hermes", "serve"}, true},
		{`sh -c "echo \"hi\" \\ there"`, []string{"sh", "-c", `echo "hi" \ there`}, true},
		{`a\ b c`, []string{"a b", "c"}, true},
		{`x '' y`, []string{"x", "", "y"}, true},
		{`$HOME/x *`, []string{"$HOME/x", "*"}, true},
		{`'unterminated`, nil, false},
		{`"unterminated`, nil, false},
		{`trailing\`, nil, false},
		{"   ", nil, false},
	}
	for _, tc := range cases {
		got, err := Split(tc.in)
		if (err == nil) != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q): got %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
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
