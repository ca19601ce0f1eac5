//go:build unix

package watchdog

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"hermes-desktop/platform/handles"
)

// OpenLifeline wraps an inherited lifeline fd: close-on-exec so the backend
// does not inherit it (a backend holding the read end would be harmless, but
// fds leak into every grandchild), and non-blocking so reads go through the
// runtime poller and can be cancelled.
func OpenLifeline(fd uintptr) (*os.File, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(fd), &st); err != nil {
		return nil, fmt.Errorf("watchdog: lifeline fd %d: %w", fd, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil, fmt.Errorf("watchdog: lifeline fd %d is not a pipe", fd)
	}
	f, err := handles.Take(fd, "lifeline")
	if err != nil {
		return nil, fmt.Errorf("watchdog: lifeline: %w", err)
	}
	return f, nil
}

// clearDeadline undoes an interrupted read's deadline for the next reader.
func clearDeadline(f *os.File) { _ = f.SetReadDeadline(time.Time{}) }

// readNow reads what the pipe holds now, without waiting for more.
func readNow(f *os.File, buf []byte) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Read(func(fd uintptr) bool {
		if k, err := syscall.Read(int(fd), buf); err == nil {
			n = k
		}
		return true // done, whatever it read: never wait
	})
	return n
}
