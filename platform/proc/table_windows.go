package proc

import (
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/windows"
)

// entries walks a Toolhelp snapshot: PID, parent PID and image name.
func entries() ([]windows.ProcessEntry32, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("proc: CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	var out []windows.ProcessEntry32
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	err = windows.Process32First(snap, &e)
	for err == nil {
		out = append(out, e)
		err = windows.Process32Next(snap, &e)
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("proc: Process32Next: %w", err)
	}
	return out, nil
}

func fromEntry(e *windows.ProcessEntry32) (Process, error) {
	pid := int(e.ProcessID)
	created, err := creationTime(pid)
	if err != nil {
		return Process{}, err
	}
	return Process{
		PID:     pid,
		PPID:    int(e.ParentProcessID),
		UID:     -1,
		Start:   "winms:" + strconv.FormatInt(created.UnixMilli(), 10),
		Started: created,
		Comm:    windows.UTF16ToString(e.ExeFile[:]),
	}, nil
}

func listProcesses() (Table, error) {
	es, err := entries()
	if err != nil {
		return nil, err
	}
	t := make(Table, 0, len(es))
	for i := range es {
		if p, err := fromEntry(&es[i]); err == nil {
			t = append(t, p)
		}
	}
	return t, nil
}

func listPIDs() ([]int, error) {
	es, err := entries()
	if err != nil {
		return nil, err
	}
	pids := make([]int, len(es))
	for i, e := range es {
		pids[i] = int(e.ProcessID)
	}
	return pids, nil
}

func readProcess(pid int) (Process, error) {
	es, err := entries()
	if err != nil {
		return Process{}, err
	}
	for i := range es {
		if int(es[i].ProcessID) == pid {
			return fromEntry(&es[i])
		}
	}
	return Process{}, fmt.Errorf("%w: pid %d", ErrNotFound, pid)
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
