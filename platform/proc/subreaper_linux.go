package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// SetChildSubreaper makes the calling process the nearest subreaper of its
// descendants (on) or not (off): orphans of its tree are reparented to it
// instead of init, so the tree stays reachable and collectable (prctl(2),
// PR_SET_CHILD_SUBREAPER).
func SetChildSubreaper(on bool) error {
	v := uintptr(0)
	if on {
		v = 1
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, v, 0, 0, 0); err != nil {
		return fmt.Errorf("proc: prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}
