package watchdog

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// OpenLifeline wraps an inherited lifeline handle and makes it
// non-inheritable so the backend does not receive it.
func OpenLifeline(fd uintptr) (*os.File, error) {
	h := windows.Handle(fd)
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, 0); err != nil {
		return nil, fmt.Errorf("watchdog: lifeline handle %d: %w", fd, err)
	}
	return os.NewFile(fd, "lifeline"), nil
}

// interruptRead cancels a pending synchronous read on the pipe handle:
// Windows pipe handles opened without overlapped I/O ignore read deadlines.
func interruptRead(f *os.File) {
	if err := f.SetReadDeadline(time.Now()); err != nil {
		_ = windows.CancelIoEx(windows.Handle(f.Fd()), nil)
	}
}

// clearDeadline undoes interruptRead for the next reader.
func clearDeadline(f *os.File) { _ = f.SetReadDeadline(time.Time{}) }
