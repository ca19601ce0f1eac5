package cmdline

import (
	"strings"
	"syscall"
)

// needsQuotes are the characters EscapeArg quotes or escapes: Join leaves
// any other argument bare.
const needsQuotes = " \t\"\\"

// quote is a as Windows programs read it back, by the standard library's
// own rule (syscall.EscapeArg): quotes around blanks, backslashes doubled
// only where a quote follows them.
func quote(a string) string { return syscall.EscapeArg(a) }

// splitWords reads s by the rules of CommandLineToArgvW: blanks (space,
// tab) separate words outside "double" quotes; 2n backslashes before a
// quote are n backslashes and the quote opens or closes, 2n+1 are n and a
// literal quote; any other backslash is itself. Unlike Windows, it refuses
// an unclosed quote: in a field a person typed, that is a slip.
func splitWords(s string) ([]string, error) {
	var argv []string
	var cur strings.Builder
	inWord, inQuotes := false, false
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case (c == ' ' || c == '\t') && !inQuotes:
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		case c == '\\':
			n := 0
			for ; i < len(s) && s[i] == '\\'; i++ {
				n++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
					i++
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
			}
			inWord = true
		case c == '"':
			inQuotes = !inQuotes
			inWord = true
			i++
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	if inQuotes {
		return nil, ErrOpenDoubleQuote
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	return argv, nil
}
