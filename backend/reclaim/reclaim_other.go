//go:build !linux

package reclaim

import (
	"os"
)

// reapChild is never reached: nothing is reclaimed without a subreaper.
func reapChild(int) {}

// notifyChildExit returns a channel that never fires: there are no orphans to reclaim.
func notifyChildExit() (<-chan os.Signal, func()) { return nil, func() {} }
