//go:build !linux

package backend

import (
	"errors"
	"os"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// setSubreaper is Linux-only. On macOS orphans go to launchd (the boot
// reaper finds serve-shaped ones); on Windows the per-backend job object
// keeps every descendant, orphaned or not.
func setSubreaper(bool) error { return errors.New("no child subreaper on this OS") }

// reapChild is never reached: nothing is adopted without a subreaper.
func reapChild(int) {}

// notifyChildExit returns a channel that never fires: there are no adoptees.
func notifyChildExit() (<-chan os.Signal, func()) { return nil, func() {} }
