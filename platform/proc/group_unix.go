//go:build unix

package proc

import (
	"errors"
	"fmt"
	"syscall"
)

// SignalGroup sends sig to every member of process group pgid.
//
// A group cannot be signalled through a handle, so the caller must pin the
// group id: pgid is safe only while its leader is the caller itself or an
// uncollected child of the caller (a zombie keeps its PID, and the kernel never
// hands out a PID still in use as a group id). ESRCH (empty group) is
// reported as ErrNotFound.
func SignalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("proc: refusing to signal process group %d", pgid)
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%w: group %d", ErrNotFound, pgid)
	}
	if err != nil {
		return fmt.Errorf("proc: signal %v to group %d: %w", sig, pgid, err)
	}
	return nil
}
