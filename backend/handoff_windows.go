package backend

import (
	"fmt"
	"hermes-desktop/backend/control"
	"hermes-desktop/backend/handoffwire"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// successorAttr starts a handoff's successor outside our kill-on-close job
// (it must outlive us) and without our console.
func successorAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_BREAKAWAY_FROM_JOB | windows.DETACHED_PROCESS}
}

// adoptSupported: os/exec cannot hand extra handles to a child on Windows,
// so the lifelines cannot cross over; use the restart mode there.
func adoptSupported() error {
	return fmt.Errorf("handoff: %w: adopt mode is not available on Windows; use --mode restart", control.ErrRefused)
}

// InheritFile wraps a handed-over handle (adopt mode never runs on Windows).
func InheritFile(fd int, name string) *os.File { return os.NewFile(uintptr(fd), name) }

// restoreNonblock has nothing to restore on Windows.
func restoreNonblock([]*os.File) {}

// updateHandoffMode: Windows cannot pass the lifelines to a child, so an
// update restarts the backends (restart mode).
func updateHandoffMode() handoffwire.Mode { return handoffwire.ModeRestart }
