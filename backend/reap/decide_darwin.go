package reap

import (
	"fmt"

	"hermes-desktop/platform/proc"
)

// serviceUnit: macOS has no cgroups; see serviceManaged.
func serviceUnit(int) string { return "" }

// serviceManaged spots launchd jobs: launchd starts each job as a session
// leader (setsid), while our backends never lead a session (the shim only
// leads a process group inside the launcher's session). An orphan of ours
// and a launchd agent both have launchd as their parent; this tells them
// apart.
func serviceManaged(p, _ proc.Process) string {
	if p.PPID == 1 && p.SID == p.PID {
		return fmt.Sprintf("it leads its own session under launchd (pid %d): a launchd job", p.PPID)
	}
	return ""
}

// isOrphan: launchd (PID 1) adopts orphans on macOS.
func isOrphan(p, _ proc.Process, _ int) bool { return p.PPID <= 1 }
