package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReadFile reads a small /proc file with three raw syscalls (also for the
// platform packages that read /proc: cgroup, sampling). os.ReadFile
// costs several more per file (fstat for the size, registering the fd with
// the poller), which adds up when a teardown walks a tree against the clock
// or the reaper scans thousands of processes. Files larger than buf fall
// back to os.ReadFile.
func ReadFile(path string, buf []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	n, total := 0, 0
	for total < len(buf) {
		n, err = unix.Read(fd, buf[total:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		total += n
	}
	unix.Close(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if total == len(buf) {
		return os.ReadFile(path)
	}
	return buf[:total], nil
}

// Vanished reports whether err is what /proc gives for a vanished process.
func Vanished(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// wrapNotFound turns a vanished-process error into ErrNotFound.
func wrapNotFound(pid int, what string, err error) error {
	if Vanished(err) {
		return fmt.Errorf("%w: pid %d", ErrNotFound, pid)
	}
	return fmt.Errorf("proc: read %s of %d: %w", what, pid, err)
}
