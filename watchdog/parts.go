package watchdog

// ValidCgroupName reports whether s is one path element (the remote
// watchdog's --cgroup, as the shim's).
func ValidCgroupName(s string) bool { return validCgroupName(s) }

// Exit codes the remote watchdog shares with the shim.
const (
	ExitUsage      = exitUsage
	ExitParentGone = exitParentGone
)
