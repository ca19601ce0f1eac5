//go:build desktop && !linux

package desktop

import "errors"

// Notify is not implemented here: on Windows systray has no balloon API, and
// on macOS closing the window quits, so there is nothing to tell.
func Notify(summary, body string) error {
	return errors.New("desktop: notify: not supported on this platform")
}
