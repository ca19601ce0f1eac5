package watchdog

import (
	"fmt"
	"os"
	"time"

	"hermes-desktop/platform/handles"
)

// OpenLifeline wraps an inherited lifeline handle and makes it
// non-inheritable so the backend does not receive it.
func OpenLifeline(fd uintptr) (*os.File, error) {
	f, err := handles.Take(fd, "lifeline")
	if err != nil {
		return nil, fmt.Errorf("watchdog: lifeline: %w", err)
	}
	return f, nil
}

// clearDeadline undoes an interrupted read's deadline for the next reader.
func clearDeadline(f *os.File) { _ = f.SetReadDeadline(time.Time{}) }

// readNow reads what the pipe holds within a moment (no exit word on
// Windows calls it; the signature is the Unix one's).
func readNow(f *os.File, buf []byte) int {
	_ = f.SetReadDeadline(time.Now().Add(time.Millisecond))
	defer clearDeadline(f)
	n, _ := f.Read(buf)
	return n
}
