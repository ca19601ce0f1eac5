package proc

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sys/windows"
)

// BootID is not tracked on Windows: creation times are wall-clock times, so
// a marker from another boot cannot match by accident.
func BootID() string { return "" }

// creationTime returns the process creation time.
func creationTime(pid int) (time.Time, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
			return time.Time{}, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
		}
		return time.Time{}, fmt.Errorf("proc: OpenProcess %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return time.Time{}, fmt.Errorf("proc: GetProcessTimes %d: %w", pid, err)
	}
	return time.Unix(0, created.Nanoseconds()), nil
}

// readStartMarker returns "winms:<creation time in ms since the Unix epoch>".
func readStartMarker(pid int) (string, error) {
	t, err := creationTime(pid)
	if err != nil {
		return "", err
	}
	return "winms:" + strconv.FormatInt(t.UnixMilli(), 10), nil
}
