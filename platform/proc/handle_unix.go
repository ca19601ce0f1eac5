//go:build unix

package proc

import (
	"context"
	"time"
)

// waitPollInterval is used only where the OS offers no exit notification
// for a process that is not our child.
const waitPollInterval = 5 * time.Millisecond

// pollUntilGone waits for id to disappear by re-reading its identity: the
// fallback where the OS gives no exit notification.
func pollUntilGone(ctx context.Context, id Identity) bool {
	t := time.NewTicker(waitPollInterval)
	defer t.Stop()
	for {
		if alive, err := Alive(id); err == nil && !alive {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}
