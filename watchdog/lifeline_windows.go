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

// interruptRead cancels the reader's synchronous reads on the pipe handle
// until it has returned: Windows pipe handles opened without overlapped I/O
// ignore read deadlines, and CancelIoEx cancels only a read in progress,
// not the next one a reader between two reads is about to start.
func interruptRead(f *os.File, returned <-chan struct{}) {
	if err := f.SetReadDeadline(time.Now()); err == nil {
		return
	}
	for {
		_ = windows.CancelIoEx(windows.Handle(f.Fd()), nil)
		select {
		case <-returned:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// clearDeadline undoes interruptRead for the next reader.
func clearDeadline(f *os.File) { _ = f.SetReadDeadline(time.Time{}) }

// readNow reads what the pipe holds within a moment (no exit word on
// Windows calls it; the signature is the Unix one's).
func readNow(f *os.File, buf []byte) int {
	_ = f.SetReadDeadline(time.Now().Add(time.Millisecond))
	defer clearDeadline(f)
	n, _ := f.Read(buf)
	return n
}
