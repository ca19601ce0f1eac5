//go:build !linux

package proc

import (
	"errors"
	"runtime"
)

// SetChildSubreaper is Linux-only: macOS sends orphans to launchd, and
// Windows keeps a tree together with a job object instead (see Job).
func SetChildSubreaper(bool) error {
	return errors.New("proc: no child subreaper on " + runtime.GOOS)
}
