//go:build unix

package builtin

import "hermes-desktop/platform/proc"

// keepInheritedNofile puts back the open-file limit we were started with.
// The Go runtime raises its soft limit to the hard one at start-up; Hermes
// (Python) does not, and the built-in backend must run out of descriptors
// where Hermes would, or the launcher's nofile floor and fd-pressure policy
// could not be seen working.
func keepInheritedNofile() error {
	n, err := proc.InheritedNofileSoft()
	if err != nil {
		return err
	}
	return proc.SetNofileSoft(n)
}
