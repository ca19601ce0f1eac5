package cgroup

import (
	"errors"

	"hermes-desktop/platform/proc"
)

// Cgroups, the kernel's container for a process tree (Linux cgroup v2).
//
// A process born in a cgroup stays in it, with everything it forks, however
// it double-forks, calls setsid or clears its environment: only a write to
// a cgroup.procs file moves it. So a backend started in a cgroup of its own
// can always be found (Members), signalled (Signal), killed in one write
// (Kill: cgroup.kill, Linux 5.14) and watched until it is empty
// (WaitEmpty: "populated 0" in cgroup.events, through inotify) even when the
// watchdog shim that started it is gone. The primitives live here, once;
// cgroup_linux.go implements them and cgroup_other.go says why no other OS
// has them.
//
// Paths: a cgroup is named by its path in the v2 hierarchy, as
// /proc/PID/cgroup writes it ("/user.slice/.../hermes-backend-<nonce>"),
// never by a file system path; the mount point is found once in
// /proc/self/mountinfo (/sys/fs/cgroup on current desktops,
// /sys/fs/cgroup/unified on hybrid hosts).

// ErrUnavailable means there is no usable cgroup v2 hierarchy here (another
// OS, a v1-only host, or /proc unreadable).
var ErrUnavailable = errors.New("cgroup: no cgroup v2 hierarchy")

// KillWait bounds the wait for a killed cgroup to report "populated
// 0": SIGKILL cannot be caught, so only a process stuck in the kernel
// outlasts it.
const KillWait = proc.KillWait
