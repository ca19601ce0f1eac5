//go:build !windows

package cmdline

import "strings"

// needsQuotes are the characters after which a shell user would quote an
// argument: Split itself needs only the blanks, quotes and backslash.
const needsQuotes = " \t\n'\"\\$`*?[]{}()<>|&;#~"

// quote is a in single quotes, each ' written as '\”.
func quote(a string) string {
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// splitWords reads s with the shell's quoting: 'single' quotes, "double"
// quotes with \" and \\ escapes, and a backslash escapes the next
// character outside quotes.
func splitWords(s string) ([]string, error) {
	var argv []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, ErrOpenSingleQuote
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, ErrOpenDoubleQuote
			}
			i = j
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, ErrTrailingBackslash
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	return argv, nil
}
