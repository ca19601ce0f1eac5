package handoff

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"hermes-desktop/contract/errkind"

	"golang.org/x/sys/windows"
)

// successorAttr starts a handoff's successor outside our kill-on-close job
// (it must outlive us) and without our console.
func successorAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_BREAKAWAY_FROM_JOB | windows.DETACHED_PROCESS}
}

// adoptSupported: the backends live in our kill-on-close job, which dies
// with us; adopting them would take handing over the job's handle as well
// as the lifelines, which is not built: use the restart mode there.
func adoptSupported() error {
	return fmt.Errorf("handoff: %w: adopt mode is not available on Windows; use --mode restart", errkind.ErrRefused)
}

// InheritFile wraps a handed-over handle (adopt mode never runs on Windows).
func InheritFile(fd int, name string) *os.File { return os.NewFile(uintptr(fd), name) }

// restoreNonblock has nothing to restore on Windows.
func restoreNonblock([]*os.File) {}

// executable: Windows runs a program by its name's extension, not by a mode
// bit (Go reports none): what PATHEXT lists, .exe by default.
func executable(path string, _ fs.FileInfo) bool {
	exts := os.Getenv("PATHEXT")
	if exts == "" {
		exts = ".COM;.EXE;.BAT;.CMD"
	}
	ext := filepath.Ext(path)
	for _, e := range strings.Split(exts, ";") {
		if e != "" && strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}
