package reclaim

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

func notifyChildExit() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, unix.SIGCHLD)
	return c, func() { signal.Stop(c) }
}
