//go:build unix

package leakguard

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"hermes-desktop/platform/rlimit"
	"hermes-desktop/platform/sampling"
)

// ApplyNofileFloor makes the backends start with a soft RLIMIT_NOFILE of at
// least floor: max(inherited, floor), clamped to the hard limit, never
// lower than what they would inherit anyway.
//
// Go raises its own soft limit to the hard one at start-up and quietly
// restores the original soft limit in every child it execs, unless the
// program calls syscall.Setrlimit itself (then children inherit what it
// set). So the inherited value is read from a child, and the floor is set
// with syscall.Setrlimit.
func ApplyNofileFloor(floor int) (string, error) {
	if floor <= 0 {
		return "", nil
	}
	inherited, err := rlimit.InheritedNofileSoft()
	if err != nil {
		return "", err
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return "", fmt.Errorf("leakguard: getrlimit: %w", err)
	}
	target := max(inherited, uint64(floor))
	if lim.Max != unix.RLIM_INFINITY && target > lim.Max {
		target = lim.Max
	}
	if target <= inherited {
		return fmt.Sprintf("open-file limit for backends stays at %d (floor %d, hard limit %d)", inherited, floor, lim.Max), nil
	}
	if err := rlimit.SetNofileSoft(target); err != nil {
		return "", err
	}
	return fmt.Sprintf("open-file limit for backends raised from %d to %d (floor %d, hard limit %d)", inherited, target, floor, lim.Max), nil
}

// nofileSoft reads pid's soft RLIMIT_NOFILE.
func nofileSoft(pid int) (uint64, error) { return sampling.NofileSoft(pid) }
