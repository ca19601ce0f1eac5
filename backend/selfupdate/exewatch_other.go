//go:build !linux

package selfupdate

import (
	"context"
	"hermes-desktop/backend/instance"
	"time"
)

// waitReplaced checks the file once a minute on systems where this watch
// has no inotify (kqueue's NOTE_RENAME and ReadDirectoryChangesW would do;
// a minute is soon enough to offer "Restart to apply").
func waitReplaced(ctx context.Context, stamp instance.ExeStamp) error {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if stamp.Changed() {
				return nil
			}
		}
	}
}
