package watchdog

import (
	"errors"
	"os"

	"hermes-desktop/platform/cgroup"
)

// openTreeCgroup has nothing to create: macOS has no kernel container for
// a process tree (no cgroups; a job-like "coalition" is private to
// launchd). The shim's own mechanism is all there is: the backend leads no
// group of its own, the shim signals its group and walks its descendants,
// and orphans (which go to launchd, not to us) are caught by the walk
// before they are orphaned.
func openTreeCgroup(string) (*cgroup.Cgroup, error) {
	return nil, errors.New("watchdog: macOS has no cgroups; the shim's process group and tree walk hold the tree")
}

// startProcessIn is never reached without a cgroup; it starts the child
// plainly.
func startProcessIn(_ *cgroup.Cgroup, exe string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	return os.StartProcess(exe, argv, attr)
}
