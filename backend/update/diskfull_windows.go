package update

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isDiskFull reports ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL or a quota.
func isDiskFull(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, windows.ERROR_DISK_QUOTA_EXCEEDED)
}
