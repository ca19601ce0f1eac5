// Package cmdline reads and writes command lines the way a user types them
// in a settings field or a flag, with the quoting of the user's own system
// and no expansion of any kind. Split(Join(argv)) == argv.
//
// Unix: shell-like quoting, 'single', "double" (with \" and \\ escapes) and
// backslash escapes outside quotes. Windows: the quoting Windows programs
// read (CommandLineToArgvW), "double" quotes (with \" and \\ escapes), and
// a backslash or an apostrophe is just a character, so that a path such as
// C:\Users\O'Brien\hermes.exe is typed as it is written.
// It is a leaf: standard library only.
package cmdline

import (
	"errors"
	"fmt"
	"strings"
)

// Split splits a command line typed by a user (a flag, a settings
// field) into argv, with the system's quoting (see the package doc). No
// expansion of any kind happens: no variables, globs or tildes.
func Split(s string) ([]string, error) {
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
		case c == '\'' && singleQuotes:
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("cmdline: unterminated ' in command")
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
				return nil, errors.New(`cmdline: unterminated " in command`)
			}
			i = j
			inWord = true
		case c == '\\' && backslashEscapes:
			if i+1 >= len(s) {
				return nil, errors.New("cmdline: command ends with a backslash")
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
	if len(argv) == 0 {
		return nil, errors.New("cmdline: empty command")
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("cmdline: NUL byte in argument %q", a)
		}
	}
	return argv, nil
}

// Join formats argv so Split reads it back unchanged, quoting only the
// arguments that need it.
func Join(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, needsQuotes) {
			parts[i] = a
			continue
		}
		parts[i] = quote(a)
	}
	return strings.Join(parts, " ")
}
