//go:build !windows

package wsl

import "os/exec"

// setProcAttr: only Windows opens console windows (and has wsl.exe).
func setProcAttr(*exec.Cmd) {}
