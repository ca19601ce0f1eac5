package cmdline

// What a Windows user types: paths with backslashes and apostrophes as
// they are written, quotes around spaces.
var splitCases = []splitCase{
	{`C:\Users\me\hermes.exe serve --port 0`, []string{`C:\Users\me\hermes.exe`, "serve", "--port", "0"}, true},
	{`"C:\Program Files\Hermes\hermes.exe" dashboard`, []string{`C:\Program Files\Hermes\hermes.exe`, "dashboard"}, true},
	{`C:\Users\O'Brien\hermes.exe serve`, []string{`C:\Users\O'Brien\hermes.exe`, "serve"}, true},
	{`\\server\share\hermes.exe`, []string{`\\server\share\hermes.exe`}, true},
	{`x "" y`, []string{"x", "", "y"}, true},
	{`trailing\`, []string{`trailing\`}, true},
	{`"\\server\share\My App\hermes.exe" serve`, []string{`\\server\share\My App\hermes.exe`, "serve"}, true},
	// Microsoft's own examples for CommandLineToArgvW.
	{`"abc" d e`, []string{"abc", "d", "e"}, true},
	{`a\\b d"e f"g h`, []string{`a\\b`, "de fg", "h"}, true},
	{`a\\\"b c d`, []string{`a\"b`, "c", "d"}, true},
	{`a\\\\"b c" d e`, []string{`a\\b c`, "d", "e"}, true},
	{`it's "unterminated`, nil, false},
}

var joinCases = []struct {
	argv []string
	want string
}{
	{[]string{`C:\Users\me\hermes.exe`, "serve"}, `C:\Users\me\hermes.exe serve`},
	{[]string{`C:\Program Files\Hermes\hermes.exe`, "it's"}, `"C:\Program Files\Hermes\hermes.exe" it's`},
	{[]string{`C:\dir with space\`, `say "hi"`, ""}, `"C:\dir with space\\" "say \"hi\"" ""`},
	{[]string{`\\server\share\My App\hermes.exe`}, `"\\server\share\My App\hermes.exe"`},
}
