//go:build unix

package ssh

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the session's shim in its own process group, so a
// terminal's ^C reaches the app, which closes its hosts in order, and not
// ssh first.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
