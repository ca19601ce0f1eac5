package cmdline

import "strings"

// remoteSafe are the bytes an argument may hold and go unquoted to a
// remote login shell: none of them means anything to sh, bash, zsh or
// fish.
const remoteSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%"

// QuoteRemote quotes s for the login shell of a remote Unix user, which
// parses the one string ssh(1) sends as its command: single quotes, each '
// inside written as a closing quote, \' and an opening quote (POSIX sh,
// bash, zsh and fish all read that), whatever the local system is. An
// argument of only remoteSafe bytes stays as it is.
func QuoteRemote(s string) string {
	if s != "" && strings.Trim(s, remoteSafe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// JoinRemote is argv as one command line for a remote login shell: the
// shell's word splitting gives argv back unchanged, with no expansion.
func JoinRemote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = QuoteRemote(a)
	}
	return strings.Join(q, " ")
}
