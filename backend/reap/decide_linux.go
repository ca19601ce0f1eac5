package reap

import (
	"os"
	"strconv"
	"strings"

	"hermes-desktop/platform/proc"
)

// serviceUnit returns the systemd unit pid runs in when that unit is a
// service ("" otherwise): the leaf of its cgroup path, from the unified
// hierarchy or the name=systemd one.
func serviceUnit(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return ""
	}
	var unified, named string
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		switch {
		case len(parts) != 3:
		case parts[1] == "name=systemd":
			named = parts[2]
		case parts[0] == "0" && parts[1] == "":
			unified = parts[2]
		}
	}
	path := named
	if path == "" {
		path = unified
	}
	leaf := path[strings.LastIndexByte(path, '/')+1:]
	if !strings.HasSuffix(leaf, ".service") || strings.HasPrefix(leaf, "user@") {
		return "" // user@UID.service is the session's own manager, not a unit of work
	}
	return leaf
}

// serviceManaged has nothing beyond the cgroup check on Linux.
func serviceManaged(_, _ proc.Process) string { return "" }

// isOrphan: the parent is init (or gone), or the user's service manager
// that orphans are reparented to (systemd --user running as uid, a
// subreaper).
func isOrphan(p, parent proc.Process, uid int) bool {
	if p.PPID <= 1 {
		return true
	}
	return parent.PID == p.PPID && parent.Comm == "systemd" && parent.UID == uid
}
