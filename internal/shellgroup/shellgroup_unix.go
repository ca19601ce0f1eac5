//go:build unix

// Package shellgroup starts a shell script as the leader of a process group
// of its own, for tests that need a real tree to walk or tear down; the
// test's cleanup kills the group and collects the leader. It imports
// nothing of this module, so the lowest packages' tests can use it.
package shellgroup

import (
	"bufio"
	"os/exec"
	"syscall"
	"testing"
)

// Start runs script with sh -c as the leader of its own process group.
func Start(t testing.TB, script string) *exec.Cmd {
	t.Helper()
	cmd, _ := start(t, script, false)
	return cmd
}

// Piped is Start with the script's stdout to read from, for a script that
// says what it started.
func Piped(t testing.TB, script string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	return start(t, script, true)
}

func start(t testing.TB, script string, piped bool) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out *bufio.Reader
	if piped {
		r, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		out = bufio.NewReader(r)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, out
}
