package ssh

import "os/exec"

// setProcAttr: Windows' ssh.exe needs nothing of ours; the shim owns it.
func setProcAttr(*exec.Cmd) {}
