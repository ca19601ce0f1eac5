package watchdog

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes orphaned descendants (a backend's children after
// the backend died, MCP servers that called setsid) reparent to us instead of
// init, so the whole tree stays reachable and reapable (prctl(2)).
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}
