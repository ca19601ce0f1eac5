package backend

import "syscall"

// openerCommand uses open(1).
func openerCommand(target string) []string { return []string{"open", target} }

// openerAttr: nothing special on macOS.
func openerAttr() *syscall.SysProcAttr { return nil }
