// Package cmdline reads and writes command lines the way a user types them
// in a settings field or a flag, with the quoting of the user's own system
// and no expansion of any kind. Split(Join(argv)) == argv.
//
// Unix: shell-like quoting, 'single', "double" (with \" and \\ escapes) and
// backslash escapes outside quotes. Windows: the rules Windows programs
// read their command line by (CommandLineToArgvW): "double" quotes, and a
// backslash is just a character unless backslashes stand before a quote,
// an apostrophe always, so that a path such as C:\Users\O'Brien\hermes.exe
// or "\\server\share\My App\hermes.exe" is typed as it is written.
// It is a leaf: standard library only.
package cmdline

import (
	"errors"
	"fmt"
	"strings"
)

// The reasons Split refuses a line. They reach people as the reason a
// command they typed is wrong (the caller names the field: "Backend
// command: a ' quote is not closed"), so they are plain words, without
// the package's prefix.
var (
	ErrOpenSingleQuote   = errors.New("a ' quote is not closed")
	ErrOpenDoubleQuote   = errors.New(`a " quote is not closed`)
	ErrTrailingBackslash = errors.New("it ends with a backslash")
	ErrEmpty             = errors.New("it is empty")
)

// Split splits a command line typed by a user (a flag, a settings
// field) into argv, with the system's quoting (see the package doc). No
// expansion of any kind happens: no variables, globs or tildes.
func Split(s string) ([]string, error) {
	argv, err := splitWords(s)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, ErrEmpty
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("argument %q holds a NUL byte", a)
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
