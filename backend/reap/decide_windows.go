package reap

import (
	"strings"

	"hermes-desktop/platform/proc"
)

// serviceUnit: Windows has no systemd units; see serviceManaged.
func serviceUnit(int) string { return "" }

// serviceManaged spots processes the Service Control Manager started: their
// parent is services.exe (and started before them, so the PID is not reused).
func serviceManaged(p, parent proc.Process) string {
	if parent.PID == p.PPID && strings.EqualFold(parent.Comm, "services.exe") && !parent.Started.After(p.Started) {
		return "it was started by the Service Control Manager (a Windows service)"
	}
	return ""
}

// isOrphan: Windows never reparents, so a process is orphaned when its
// recorded parent is gone, or when that PID now belongs to a process that
// started after it (a reused PID).
func isOrphan(p, parent proc.Process, _ int) bool {
	if parent.PID != p.PPID || parent.PID == 0 {
		return true
	}
	return !parent.Started.IsZero() && parent.Started.After(p.Started)
}
