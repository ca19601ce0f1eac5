//go:build unix

package builtin

import "hermes-desktop/platform/rlimit"

// keepInheritedNofile puts back the open-file limit we were started with.
// The Go runtime raises its soft limit to the hard one at start-up; Hermes
// (Python) does not, and the built-in backend must run out of descriptors
// where Hermes would, or the launcher's nofile floor and fd-pressure policy
// could not be seen working.
func keepInheritedNofile() error {
	n, err := rlimit.InheritedNofileSoft()
	if err != nil {
		return err
	}
	return rlimit.SetNofileSoft(n)
}
