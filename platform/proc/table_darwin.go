package proc

import (
	"fmt"
	"time"

	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/unix"
)

// sZomb is SZOMB from <sys/proc.h>: the process has exited, not collected.
const sZomb = 5

func fromKinfo(k *unix.KinfoProc) Process {
	tv := k.Proc.P_starttime
	return Process{
		PID:     int(k.Proc.P_pid),
		PPID:    int(k.Eproc.Ppid),
		PGID:    int(k.Eproc.Pgid),
		UID:     int(k.Eproc.Ucred.Uid),
		Start:   kinfoMarker(tv),
		Started: time.Unix(tv.Sec, int64(tv.Usec)*1000),
		Comm:    unix.ByteSliceToString(k.Proc.P_comm[:]),
		Zombie:  k.Proc.P_stat == sZomb,
	}
}

func listProcesses() (Table, error) {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("proc: sysctl kern.proc.all: %w", err)
	}
	t := make(Table, 0, len(all))
	for i := range all {
		if all[i].Proc.P_pid <= 0 {
			continue
		}
		p := fromKinfo(&all[i])
		if sid, err := unix.Getsid(p.PID); err == nil {
			p.SID = sid
		}
		t = append(t, p)
	}
	return t, nil
}

func listPIDs() ([]int, error) {
	t, err := listProcesses()
	if err != nil {
		return nil, err
	}
	pids := make([]int, len(t))
	for i, p := range t {
		pids[i] = p.PID
	}
	return pids, nil
}

func readProcess(pid int) (Process, error) {
	k, err := kinfo(pid)
	if err != nil {
		return Process{}, err
	}
	p := fromKinfo(k)
	if sid, err := unix.Getsid(pid); err == nil {
		p.SID = sid
	}
	return p, nil
}

func readCmdline(pid int) ([]string, error) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return nil, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
	}
	argv, err := p.CmdlineSlice()
	if err != nil {
		return nil, fmt.Errorf("proc: cmdline of %d: %w", pid, err)
	}
	return argv, nil
}
