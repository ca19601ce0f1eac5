package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// userHZ is USER_HZ, the unit of /proc/PID/stat's starttime on every Linux
// architecture Go supports (the kernel fixes it at 100 for user space).
const userHZ = 100

var bootIDOnce = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// BootID returns the kernel's boot id, or "" when it cannot be read.
func BootID() string { return bootIDOnce() }

// bootTime is when the kernel booted (btime in /proc/stat), for ages only.
var bootTime = sync.OnceValue(func() time.Time {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return time.Unix(n, 0)
			}
		}
	}
	return time.Time{}
})

// statFields holds the fields of /proc/PID/stat that we use.
type statFields struct {
	comm       string
	state      byte
	ppid       int
	pgrp       int
	session    int
	startTicks uint64
	rssPages   int64
}

// parseStat parses /proc/PID/stat. The comm field may contain spaces and
// parentheses, so the fixed fields are counted from the last ')'.
func parseStat(data []byte) (statFields, error) {
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return statFields{}, errors.New("proc: stat: no comm field")
	}
	rest := strings.Fields(string(data[end+1:]))
	// rest[0] is field 3 (state); starttime is field 22, rss field 24.
	if len(rest) < 22 {
		return statFields{}, fmt.Errorf("proc: stat: %d fields after comm, want >= 22", len(rest))
	}
	var f statFields
	f.comm = string(data[open+1 : end])
	if len(rest[0]) > 0 {
		f.state = rest[0][0]
	}
	ints := []*int{&f.ppid, &f.pgrp, &f.session}
	for i, dst := range ints {
		n, err := strconv.Atoi(rest[1+i])
		if err != nil {
			return statFields{}, fmt.Errorf("proc: stat field %d: %w", 4+i, err)
		}
		// The kernel never prints a negative ppid, pgrp or session (0 is
		// "none"); a line with one is not a stat line we understand.
		if n < 0 {
			return statFields{}, fmt.Errorf("proc: stat field %d: negative id %d", 4+i, n)
		}
		*dst = n
	}
	ticks, err := strconv.ParseUint(rest[19], 10, 64)
	if err != nil {
		return statFields{}, fmt.Errorf("proc: stat field 22: %w", err)
	}
	f.startTicks = ticks
	rss, err := strconv.ParseInt(rest[21], 10, 64)
	if err != nil {
		return statFields{}, fmt.Errorf("proc: stat field 24: %w", err)
	}
	f.rssPages = rss
	return f, nil
}

func readStat(pid int) (statFields, error) {
	var buf [1024]byte
	data, err := ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", buf[:])
	if err != nil {
		return statFields{}, wrapNotFound(pid, "stat", err)
	}
	f, err := parseStat(data)
	if err != nil {
		return statFields{}, fmt.Errorf("pid %d: %w", pid, err)
	}
	return f, nil
}

// readStartMarker returns "linux:<starttime>", the raw tick count. gopsutil's
// CreateTime adds a boot time that can drift by a second, so it is never used
// for identity.
func readStartMarker(pid int) (string, error) {
	f, err := readStat(pid)
	if err != nil {
		return "", err
	}
	return "linux:" + strconv.FormatUint(f.startTicks, 10), nil
}
