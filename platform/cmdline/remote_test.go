package cmdline

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// remoteShells are the login shells a remote user may have: sshd runs the
// user's shell as `SHELL -c COMMAND`, and COMMAND must mean the same argv
// to each.
var remoteShells = []string{"sh", "dash", "bash", "zsh", "fish"}

// hostileArgs are arguments a remote command may carry that one of the
// shells would read as code if quoted for another: MARK is replaced by a
// file that must never appear.
var hostileArgs = []string{
	"plain", "", " ", "it's", `say "hi"`, `a\b`, "$HOME", "`touch MARK`", "$(touch MARK)", "*", "~", "a;b",
	`x\`, "; touch MARK #", // fish: \' inside single quotes (the review's exploit)
	`\`, `\\`, `'\`, `\'`, `'`, "''", `x\'`, `\'; touch MARK #`,
	"=ls", "=", "~root", "~/x", "%self", "!!", "!x", "!$", "^x", "^", "a^b", "{a,b}", "[ab]", "?",
	"#", "#x", "a #b", "%s", "-n", "--", "-c", "a b  c", "new\nline", "\n", "tab\there", "\r\x01\x7f",
	"ünï", "日本語", "\xff\xfe", "&", "|", ">MARK", "<MARK", "a&&touch MARK", "$", "${x}", "$((1+1))",
	"(x)", "(", "'; touch MARK; '", `"; touch MARK; "`, "\\\n", "end\\",
}

// corpus is hostileArgs with MARK replaced by mark.
func corpus(mark string) []string {
	out := make([]string, len(hostileArgs))
	for i, a := range hostileArgs {
		out[i] = strings.ReplaceAll(a, "MARK", mark)
	}
	return out
}

// TestQuoteRemoteShells runs each remote shell installed here as sshd
// does (`SHELL -c LINE`) on JoinRemote's line for a program that prints
// its arguments, and checks that the program gets exactly argv, with
// nothing run or expanded: the review's fish exploit alone, then every
// hostile argument at once.
func TestQuoteRemoteShells(t *testing.T) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		t.Skip("no printf program on this system")
	}
	tested := 0
	for _, name := range remoteShells {
		shell, err := exec.LookPath(name)
		if err != nil {
			t.Logf("%s: not installed, not tested", name)
			continue
		}
		tested++
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			mark := filepath.Join(dir, "pwned")
			exploit := []string{`x\`, "; touch " + mark + " #"}
			for _, args := range [][]string{exploit, corpus(mark)} {
				checkShell(t, shell, dir, printf, args)
				if _, err := os.Lstat(mark); err == nil {
					t.Fatalf("%s ran a command hidden in an argument: %s exists", name, mark)
				}
			}
		})
	}
	if tested == 0 {
		t.Skip("no remote shell installed")
	}
}

// checkShell runs `shell -c LINE` in dir, LINE being printf printing args,
// and checks what printf printed.
func checkShell(t *testing.T, shell, dir, printf string, args []string) {
	t.Helper()
	line := JoinRemote(append([]string{printf, `%s\0`}, args...))
	cmd := exec.Command(shell, "-c", line)
	// A home of its own: no rc file of this machine's user.
	cmd.Dir, cmd.Env = dir, []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + dir}
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Errorf("%s -c: %v: %s", shell, err, exit.Stderr)
	} else if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if slices.Equal(got, args) {
		return
	}
	for i := range min(len(got), len(args)) {
		if got[i] != args[i] {
			t.Errorf("argument %d: got %q, want %q", i, got[i], args[i])
		}
	}
	t.Errorf("%s read %d arguments, want %d, from %q", shell, len(got), len(args), line)
}

func TestQuoteRemote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "'plain'"},
		{"/home/a/.hermes-desktop/x", "'/home/a/.hermes-desktop/x'"},
		{"", "''"},
		{"it's", `'it'\''s'`},
		{"'", `\'`},
		{`x\`, `'x'\\`},
		{`\'`, `\\\'`},
		{"$HOME", "'$HOME'"},
		{"a b", "'a b'"},
	} {
		if got := QuoteRemote(tc.in); got != tc.want {
			t.Errorf("QuoteRemote(%q): got %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzQuoteRemote checks that QuoteRemote writes only the sublanguage
// that sh, dash, bash, zsh and fish all read alike (single-quoted runs
// holding no ' or \, and \' or \\ between them), and that reading it
// gives s back. TestQuoteRemoteShells checks that the shells do read it so.
func FuzzQuoteRemote(f *testing.F) {
	for _, a := range hostileArgs {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := QuoteRemote(s)
		got, err := readCommonQuoting(q)
		if err != nil || got != s {
			t.Fatalf("QuoteRemote(%q) = %s: read back %q, %v", s, q, got, err)
		}
	})
}

// readCommonQuoting reads one word of the common sublanguage.
func readCommonQuoting(q string) (string, error) {
	if q == "" {
		return "", errors.New("an empty word is no argument")
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '\\':
			if i+1 == len(q) || (q[i+1] != '\'' && q[i+1] != '\\') {
				return "", errors.New(`\ escapes only ' and \ outside quotes`)
			}
			i++
			b.WriteByte(q[i])
		case '\'':
			end := strings.IndexByte(q[i+1:], '\'')
			if end < 0 {
				return "", errors.New("unterminated quote")
			}
			run := q[i+1 : i+1+end]
			if strings.IndexByte(run, '\\') >= 0 {
				return "", errors.New(`a \ inside single quotes (an escape in fish)`)
			}
			b.WriteString(run)
			i += end + 1
		default:
			return "", errors.New("a byte outside quotes")
		}
	}
	return b.String(), nil
}
