package backend

import "syscall"

// openerCommand uses xdg-open, the freedesktop way to open a URL or folder.
func openerCommand(target string) []string { return []string{"xdg-open", target} }

// openerAttr: nothing special on Linux.
func openerAttr() *syscall.SysProcAttr { return nil }
