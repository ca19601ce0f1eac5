package backend

import (
	"fmt"
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

const (
	sigTerm = unix.SIGTERM
	sigKill = unix.SIGKILL
)

// setSubreaper makes the launcher the nearest subreaper of every backend
// tree while it runs: if a shim dies, its orphans come to us, not to init
// (prctl(2)). Shutdown turns it off again, so a process that outlives its
// launcher (a test binary, say) does not keep adopting orphans.
func setSubreaper(on bool) error {
	v := uintptr(0)
	if on {
		v = 1
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, v, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}

// reapChild collects one exited child we adopted. Only that PID: never
// wait(-1), which would steal the status of children others wait for.
func reapChild(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}

func notifyChildExit() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, unix.SIGCHLD)
	return c, func() { signal.Stop(c) }
}
