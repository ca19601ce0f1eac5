package sampling

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"hermes-desktop/platform/proc"
)

var pageSize = int64(os.Getpagesize())

func readUsage(pid int) (Usage, error) {
	rss, err := readRSSPages(pid)
	if err != nil {
		return Usage{}, err
	}
	n, err := countFDs(pid)
	if err != nil {
		return Usage{}, err
	}
	return Usage{RSS: rss * pageSize, FDs: n}, nil
}

// readRSSPages reads the resident set from /proc/PID/statm (its second
// field, in pages): the counter /proc/PID/stat reports too, but stat makes
// the kernel walk every thread of the process for its CPU times, and the
// leak guard reads this at every sample of every process in a tree.
func readRSSPages(pid int) (int64, error) {
	var buf [128]byte
	data, err := proc.ReadFile("/proc/"+strconv.Itoa(pid)+"/statm", buf[:])
	if err != nil {
		return 0, wrapNotFound(pid, "statm", err)
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0, fmt.Errorf("sampling: statm of %d: %q has no resident field", pid, data)
	}
	rss, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || rss < 0 {
		return 0, fmt.Errorf("sampling: statm of %d: resident %q is not a page count", pid, f[1])
	}
	return rss, nil
}

// countFDs counts the entries of /proc/PID/fd with raw getdents calls:
// reading the names would allocate a string per descriptor, and a leaking
// backend can have thousands.
func countFDs(pid int) (int, error) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, wrapNotFound(pid, "fd list", err)
	}
	defer unix.Close(fd)
	var buf [16 << 10]byte
	count := 0
	for {
		n, err := unix.Getdents(fd, buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, wrapNotFound(pid, "fd list", err)
		}
		if n <= 0 {
			return count, nil
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		for off := 0; off+19 < n; {
			reclen := int(binary.LittleEndian.Uint16(buf[off+16:]))
			if reclen == 0 {
				break
			}
			if name := buf[off+19]; name != '.' {
				count++
			}
			off += reclen
		}
	}
}

func readNofileSoft(pid int) (uint64, error) {
	var buf [4096]byte
	data, err := proc.ReadFile("/proc/"+strconv.Itoa(pid)+"/limits", buf[:])
	if err != nil {
		return 0, wrapNotFound(pid, "limits", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "Max open files")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 || f[0] == "unlimited" {
			return 0, nil
		}
		return strconv.ParseUint(f[0], 10, 64)
	}
	return 0, nil
}

// wrapNotFound turns a vanished-process error into proc.ErrNotFound.
func wrapNotFound(pid int, what string, err error) error {
	if proc.Vanished(err) {
		return fmt.Errorf("%w: pid %d", proc.ErrNotFound, pid)
	}
	return fmt.Errorf("sampling: read %s of %d: %w", what, pid, err)
}
