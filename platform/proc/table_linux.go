package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

func listPIDs() ([]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("proc: open /proc: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("proc: list /proc: %w", err)
	}
	pids := make([]int, 0, len(names))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		if pid, err := strconv.Atoi(name); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func listProcesses() (Table, error) {
	pids, err := listPIDs()
	if err != nil {
		return nil, err
	}
	t := make(Table, 0, len(pids))
	for _, pid := range pids {
		p, err := readProcess(pid)
		if err != nil {
			continue // exited while we looked, or unreadable: not ours to judge here
		}
		t = append(t, p)
	}
	return t, nil
}

func readProcess(pid int) (Process, error) {
	f, err := readStat(pid)
	if err != nil {
		return Process{}, err
	}
	uid := -1
	if fi, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			uid = int(st.Uid)
		}
	}
	p := Process{
		PID:    pid,
		PPID:   f.ppid,
		PGID:   f.pgrp,
		SID:    f.session,
		UID:    uid,
		Start:  "linux:" + strconv.FormatUint(f.startTicks, 10),
		Comm:   f.comm,
		Zombie: f.state == 'Z',
	}
	if bt := bootTime(); !bt.IsZero() {
		p.Started = bt.Add(time.Duration(f.startTicks) * time.Second / userHZ)
	}
	return p, nil
}

func readCmdline(pid int) ([]string, error) {
	var buf [4096]byte
	data, err := ReadFile("/proc/"+strconv.Itoa(pid)+"/cmdline", buf[:])
	if err != nil {
		return nil, wrapNotFound(pid, "cmdline", err)
	}
	return splitCmdline(data), nil
}

// splitCmdline splits a NUL-separated argument block. A process that
// rewrote its argv with spaces instead of NULs stays one argument.
func splitCmdline(data []byte) []string {
	data = bytes.TrimRight(data, "\x00")
	if len(data) == 0 {
		return nil
	}
	parts := bytes.Split(data, []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}
