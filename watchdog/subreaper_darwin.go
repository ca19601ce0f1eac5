package watchdog

import "errors"

// becomeSubreaper cannot be done on macOS, which has no subreaper: orphans
// go to launchd. The shim still signals its group and every descendant it
// can see by parent links before they are orphaned.
func becomeSubreaper() error {
	return errors.New("macOS has no child subreaper")
}
