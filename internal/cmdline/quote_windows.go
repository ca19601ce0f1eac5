package cmdline

import "strings"

// Windows' quoting: only "double" quotes; a backslash or an apostrophe is
// an ordinary character, as in every path a user copies from Explorer.
const (
	singleQuotes     = false
	backslashEscapes = false
)

// needsQuotes are the characters Split cannot take bare on Windows.
const needsQuotes = " \t\n\""

// quote is a in double quotes, as Split reads them: \" for a quote, and
// \\ for a backslash that a quote, another backslash or the closing quote
// follows (any other backslash is read as itself, so C:\dir\x stays
// readable).
func quote(a string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(a); i++ {
		switch c := a[i]; {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\' && (i+1 == len(a) || a[i+1] == '"' || a[i+1] == '\\'):
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
