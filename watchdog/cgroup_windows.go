package watchdog

import (
	"errors"

	"hermes-desktop/platform/cgroup"
)

// openTreeCgroup has nothing to create on Windows, and nothing is missing:
// the shim's kill-on-close job object (containTree) already holds every
// descendant from birth, breakaway is not allowed, and closing the job
// when the shim dies, however it dies, kills them all.
func openTreeCgroup(string) (*cgroup.Cgroup, error) {
	return nil, errors.New("watchdog: no cgroups on Windows; the shim's kill-on-close job holds the tree")
}
