package cmdline

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hermes-desktop/internal/sshtest"
)

// TestQuoteRemoteOverSSH sends JoinRemote's line through a real sshd to
// each remote shell installed here and checks that the remote program
// gets exactly argv and that nothing hidden in an argument ran. sshd runs
// the command string with the user's login shell (`SHELL -c LINE`); to
// have fish, zsh, dash... there without creating a user per shell, the
// authorized key's command= option hands the same string, unparsed, from
// the login shell to the shell under test (`exec SHELL -c
// "$SSH_ORIGINAL_COMMAND"`), which is what that shell as the login shell
// would be given. The first run is the login shell itself, unwrapped.
func TestQuoteRemoteOverSSH(t *testing.T) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		t.Skip("no printf program on this system")
	}
	srv := sshtest.Start(t)
	keys := filepath.Join(srv.Dir, "authorized_keys")
	key, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(t.TempDir(), "pwned")
	exploit := []string{`x\`, "; touch " + mark + " #"}
	for _, name := range append([]string{"login shell"}, remoteShells...) {
		entry := string(key)
		if name != "login shell" {
			shell, err := exec.LookPath(name)
			if err != nil {
				t.Logf("%s: not installed, not tested", name)
				continue
			}
			entry = fmt.Sprintf(`command="exec %s -c \"$SSH_ORIGINAL_COMMAND\"" %s`, shell, key)
		}
		if err := os.WriteFile(keys, []byte(entry), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{exploit, corpus(mark)} {
			checkOverSSH(t, srv, name, printf, args)
			if _, err := os.Lstat(mark); err == nil {
				t.Fatalf("%s over ssh ran a command hidden in an argument: %s exists", name, mark)
			}
		}
	}
}

// checkOverSSH runs printf printing args on srv's host, through ssh, and
// checks what it printed.
func checkOverSSH(t *testing.T, srv *sshtest.Server, name, printf string, args []string) {
	t.Helper()
	line := JoinRemote(append([]string{printf, `%s\0`}, args...))
	out, err := exec.Command("ssh", "-F", srv.ClientConfig, "-T", "-o", "BatchMode=yes", "--", sshtest.Alias, line).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Errorf("%s over ssh: %v: %s", name, err, exit.Stderr)
		return
	} else if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(got, args) {
		t.Errorf("%s over ssh: the remote program got %q,\nwant %q", name, got, args)
	}
}
