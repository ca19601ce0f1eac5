//go:build unix

// Package shellgroup starts a shell script as the leader of a process group
// of its own, for tests that need a real tree to walk or tear down; the
// test's cleanup kills the group and collects the leader. It imports
// nothing of this module, so the lowest packages' tests can use it.
package shellgroup

import (
	"os/exec"
	"syscall"
	"testing"
)

// Start runs script with sh -c as the leader of its own process group.
func Start(t testing.TB, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}
