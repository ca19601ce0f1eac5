package proc

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

var bootIDOnce = sync.OnceValue(func() string {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil {
		return ""
	}
	return id
})

// BootID returns macOS's boot session UUID, or "" when it cannot be read.
func BootID() string { return bootIDOnce() }

func kinfo(pid int) (*unix.KinfoProc, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return nil, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
		}
		return nil, fmt.Errorf("proc: sysctl kern.proc.pid %d: %w", pid, err)
	}
	// The kernel answers a free PID with an empty record rather than ESRCH.
	if int(k.Proc.P_pid) != pid {
		return nil, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
	}
	return k, nil
}

// kinfoMarker is our start marker on macOS: the kernel's start time to the
// microsecond. Hermes' "ps:<lstart>" form is local time to the second, and a
// change of time zone while we run would make it miss (HermesMarker makes
// it for the environment variable Hermes reads).
func kinfoMarker(tv unix.Timeval) string {
	return fmt.Sprintf("kinfo:%d.%06d", tv.Sec, tv.Usec)
}

func readStartMarker(pid int) (string, error) {
	k, err := kinfo(pid)
	if err != nil {
		return "", err
	}
	return kinfoMarker(k.Proc.P_starttime), nil
}
