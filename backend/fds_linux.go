package backend

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeOnExecInherited marks every fd above stderr close-on-exec. Go sets
// O_CLOEXEC on every file it opens, but fds the launcher inherited without it
// (from a shell, a desktop session, a test harness) would otherwise leak into
// every backend, keeping foreign pipes and sockets open for as long as the
// backend lives.
func closeOnExecInherited() error {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("backend: list own fds: %w", err)
	}
	names, err := d.Readdirnames(-1)
	dirFD := int(d.Fd())
	if err != nil {
		d.Close()
		return fmt.Errorf("backend: list own fds: %w", err)
	}
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 || fd == dirFD {
			continue
		}
		unix.CloseOnExec(fd)
	}
	return d.Close()
}
