package testbin

import (
	"time"

	"golang.org/x/sys/unix"
)

// OpenPidfds opens a pidfd on each process still there, by PID; the
// benchmarks time exits through them without scanning the table.
func OpenPidfds(pids []int) map[int]int {
	fds := map[int]int{}
	for _, pid := range pids {
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			fds[pid] = fd
		}
	}
	return fds
}

// ClosePidfds closes every pidfd.
func ClosePidfds(fds map[int]int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// WaitPidfds polls the pidfds (a blocking poll, not a table scan) until
// each became readable, i.e. its process exited, or wait passed; it
// returns when each one exited.
func WaitPidfds(fds map[int]int, wait time.Duration) map[int]time.Time {
	gone := map[int]time.Time{}
	deadline := time.Now().Add(wait)
	for len(gone) < len(fds) && time.Now().Before(deadline) {
		var pfds []unix.PollFd
		var pids []int
		for pid, fd := range fds {
			if _, ok := gone[pid]; !ok {
				pfds = append(pfds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
				pids = append(pids, pid)
			}
		}
		n, err := unix.Poll(pfds, int(time.Until(deadline).Milliseconds())+1)
		now := time.Now()
		if err != nil || n == 0 {
			continue
		}
		for i, p := range pfds {
			if p.Revents != 0 {
				gone[pids[i]] = now
			}
		}
	}
	return gone
}
