package proc

import (
	"errors"
	"fmt"
	"sync"
	"time"

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

// lstart formats a start time the way `ps -o lstart=` prints it, which is
// what Hermes records as "ps:<lstart>".
func lstart(tv unix.Timeval) string {
	return time.Unix(tv.Sec, int64(tv.Usec)*1000).Local().Format("Mon Jan _2 15:04:05 2006")
}

func readStartMarker(pid int) (string, error) {
	k, err := kinfo(pid)
	if err != nil {
		return "", err
	}
	return "ps:" + lstart(k.Proc.P_starttime), nil
}
