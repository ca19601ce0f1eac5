//go:build unix

package handoff

import (
	"io/fs"
	"os"
	"syscall"
)

// successorAttr starts a handoff's successor in a session of its own: it
// must outlive us, and a terminal's hangup must not reach it.
func successorAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// adoptSupported: inherited fds carry the lifelines and pipes on Unix.
func adoptSupported() error { return nil }

// InheritFile takes an fd a predecessor handed over: close-on-exec (nothing we
// start later may hold another backend's lifeline) and non-blocking.
func InheritFile(fd int, name string) *os.File {
	syscall.CloseOnExec(fd)
	_ = syscall.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), name)
}

// restoreNonblock puts files back in non-blocking mode after os/exec handed
// them to a child (taking their fd switches them to blocking), without
// calling Fd again: a blocking pipe could no longer be interrupted by Close.
func restoreNonblock(files []*os.File) {
	for _, f := range files {
		if rc, err := f.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), true) })
		}
	}
}

// executable: an execute bit, as exec(2) wants.
func executable(_ string, fi fs.FileInfo) bool { return fi.Mode().Perm()&0o111 != 0 }
