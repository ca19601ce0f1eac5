//go:build !windows

package cmdline

import (
	"errors"
	"testing"
)

var splitCases = []splitCase{
	{`'/Applications/My App/hermes' serve`, []string{"/Applications/My App/hermes", "serve"}, true},
	{`a\ b c`, []string{"a b", "c"}, true},
	{`sh -c "echo \"hi\" \\ there"`, []string{"sh", "-c", `echo "hi" \ there`}, true},
	{`x '' y`, []string{"x", "", "y"}, true},
	{`'unterminated`, nil, false},
	{`trailing\`, nil, false},
}

var joinCases = []struct {
	argv []string
	want string
}{
	{[]string{"hermes", "serve"}, `hermes serve`},
	{[]string{"/opt/My App/hermes", "it's"}, `'/opt/My App/hermes' 'it'\''s'`},
	{[]string{"x", ""}, `x ''`},
}

func TestSplitErrorsOther(t *testing.T) {
	for in, want := range map[string]error{`it's`: ErrOpenSingleQuote, `trailing\`: ErrTrailingBackslash} {
		if _, err := Split(in); !errors.Is(err, want) {
			t.Errorf("Split(%q): got %v, want %v", in, err, want)
		}
	}
}
