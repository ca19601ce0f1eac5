package proc

import (
	"sort"
	"time"
)

// Process is one row of the process table with the fields that are cheap to
// read for every process. Command lines are read separately (Cmdline) because
// most callers only need them for a few rows.
type Process struct {
	PID  int
	PPID int
	// PGID and SID are the process group and session; 0 when the OS does not
	// report them (Windows).
	PGID int
	SID  int
	// UID is the effective user id; -1 when unknown (Windows).
	UID int
	// Start is the start marker (see Identity.Start).
	Start string
	// Started is the wall-clock start time, good to about a second: use it
	// for ages, never for identity.
	Started time.Time
	// Comm is the short executable name the kernel reports.
	Comm string
	// Zombie is true for a process that has exited and waits to be collected.
	Zombie bool
}

// Identity returns the durable name of p.
func (p Process) Identity() Identity {
	return Identity{PID: p.PID, Start: p.Start, BootID: BootID()}
}

// Table is a snapshot of the process table.
type Table []Process

// Snapshot lists every process visible to the caller. Processes that exit
// while the table is read are skipped.
func Snapshot() (Table, error) { return listProcesses() }

// Find returns the row for pid.
func (t Table) Find(pid int) (Process, bool) {
	for _, p := range t {
		if p.PID == pid {
			return p, true
		}
	}
	return Process{}, false
}

// Descendants returns every process whose parent chain leads to root,
// excluding root, parents before children (breadth first, PIDs ascending
// within a level). A row that started before its recorded parent is not that
// parent's child: on Windows the parent PID is never updated, so it can name
// a later process that reused the PID.
func (t Table) Descendants(root int) []Process {
	byPID := make(map[int]Process, len(t))
	for _, p := range t {
		byPID[p.PID] = p
	}
	children := make(map[int][]Process, len(t))
	for _, p := range t {
		parent, ok := byPID[p.PPID]
		if p.PID == p.PPID || (ok && startedBefore(p, parent)) {
			continue
		}
		children[p.PPID] = append(children[p.PPID], p)
	}
	var out []Process
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		kids := children[pid]
		sort.Slice(kids, func(i, j int) bool { return kids[i].PID < kids[j].PID })
		for _, c := range kids {
			if seen[c.PID] {
				continue
			}
			seen[c.PID] = true
			out = append(out, c)
			queue = append(queue, c.PID)
		}
	}
	return out
}

// Group returns the members of process group pgid.
func (t Table) Group(pgid int) []Process {
	var out []Process
	for _, p := range t {
		if pgid > 0 && p.PGID == pgid {
			out = append(out, p)
		}
	}
	return out
}

// Cmdline returns the argument vector of pid. A process whose command line
// cannot be read (gone, kernel thread, another user's on a hardened system)
// returns an error.
func Cmdline(pid int) ([]string, error) { return readCmdline(pid) }

// Stat reads the table row of one process.
func Stat(pid int) (Process, error) { return readProcess(pid) }

// PIDs lists the PIDs of every visible process; the cheapest possible scan.
func PIDs() ([]int, error) { return listPIDs() }

func startedBefore(a, b Process) bool {
	return !a.Started.IsZero() && !b.Started.IsZero() && a.Started.Before(b.Started)
}

// DescendantsOf returns every live descendant of root. On Linux it walks the
// kernel's children lists, reading only the tree itself, which matters when
// a teardown races the clock; elsewhere it scans the whole table. Each
// member's parent link is checked, and a member whose PID was reused while
// the walk ran is not descended into.
func DescendantsOf(root int) ([]Process, error) {
	if out, ok := descendantsByChildren(root); ok {
		return out, nil
	}
	t, err := Snapshot()
	if err != nil {
		return nil, err
	}
	return t.Descendants(root), nil
}
