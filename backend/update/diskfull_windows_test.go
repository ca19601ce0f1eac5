package update

import "golang.org/x/sys/windows"

// diskFullErrnos are how Windows reports a full disk: ERROR_DISK_FULL,
// ERROR_HANDLE_DISK_FULL (a write through a handle), or a full quota.
var diskFullErrnos = []error{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL, windows.ERROR_DISK_QUOTA_EXCEEDED}
