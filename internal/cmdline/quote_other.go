//go:build !windows

package cmdline

import "strings"

// The shell's quoting: 'single' quotes, and a backslash escapes the next
// character outside quotes.
const (
	singleQuotes     = true
	backslashEscapes = true
)

// needsQuotes are the characters after which a shell user would quote an
// argument: Split itself needs only the blanks, quotes and backslash.
const needsQuotes = " \t\n'\"\\$`*?[]{}()<>|&;#~"

// quote is a in single quotes, each ' written as '\”.
func quote(a string) string {
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
