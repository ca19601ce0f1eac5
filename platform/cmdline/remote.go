package cmdline

import "strings"

// QuoteRemote quotes s for the login shell of a remote Unix user, which
// parses the one string ssh(1) sends as its command, whatever the local
// system is. That shell may be sh, dash, bash, zsh or fish, which agree on
// very little: fish reads \' and \\ as escapes even inside single quotes
// (an argument ending in \ would close nothing and let the next one run as
// code), zsh expands a bare word that starts with = and fish one that
// starts with ~ or %. So every argument is quoted whole, even a plain one:
// runs of other bytes in single quotes (where all five take every byte,
// newlines and non-ASCII included, literally but for ' and, in fish, \),
// and each ' and \ written as \' and \\ outside them, which all five read
// as that one character. The empty argument is two single quotes.
func QuoteRemote(s string) string {
	if s == "" {
		return "''"
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	open := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' || c == '\\' {
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteByte('\\')
			b.WriteByte(c)
			continue
		}
		if !open {
			b.WriteByte('\'')
			open = true
		}
		b.WriteByte(c)
	}
	if open {
		b.WriteByte('\'')
	}
	return b.String()
}

// JoinRemote is argv as one command line for a remote login shell (sh,
// dash, bash, zsh or fish): the shell's word splitting gives argv back
// unchanged, with no expansion.
func JoinRemote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = QuoteRemote(a)
	}
	return strings.Join(q, " ")
}
