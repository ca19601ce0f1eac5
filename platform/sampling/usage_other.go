//go:build !linux

package sampling

import (
	"fmt"

	"github.com/shirou/gopsutil/v4/process"

	"hermes-desktop/platform/proc"
)

// readUsage uses gopsutil where there is no /proc to read cheaply.
func readUsage(pid int) (Usage, error) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return Usage{}, fmt.Errorf("%w: pid %d", proc.ErrNotFound, pid)
	}
	var u Usage
	if mem, err := p.MemoryInfo(); err == nil {
		u.RSS = int64(mem.RSS)
	}
	if n, err := p.NumFDs(); err == nil {
		u.FDs = int(n)
	}
	return u, nil
}

func readNofileSoft(pid int) (uint64, error) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return 0, fmt.Errorf("%w: pid %d", proc.ErrNotFound, pid)
	}
	limits, err := p.Rlimit()
	if err != nil {
		return 0, fmt.Errorf("sampling: limits of %d: %w", pid, err)
	}
	for _, l := range limits {
		if l.Resource == process.RLIMIT_NOFILE {
			return l.Soft, nil
		}
	}
	return 0, nil
}
