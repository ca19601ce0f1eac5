package reclaim

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// reapChild collects one exited child we reclaimed. Only that PID: never
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
