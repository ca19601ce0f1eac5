package proc

import (
	"os"
	"strconv"
	"strings"
)

// childrenOf lists pid's children from /proc/PID/task/*/children (Linux 3.5+
// with CONFIG_PROC_CHILDREN): a few small reads instead of a scan of every
// process. ok is false when the files are not there.
func childrenOf(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var buf [4096]byte
	for _, task := range tasks {
		data, err := ReadFile(dir+"/"+task.Name()+"/children", buf[:])
		if Vanished(err) {
			continue // the thread ended while we listed: it has no children now
		}
		if err != nil {
			return nil, false
		}
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids, true
}

// member is a tree member the walk has pinned: its PID and start time.
type member struct {
	pid   int
	ticks uint64
}

// sameProcess reports whether pid still has the start time it had when the
// walk met it. Checked after a member's children are read: if the member
// had died and its PID gone to a stranger in between, the children listed
// are the stranger's, and they are dropped.
func (m member) sameProcess() bool {
	f, err := readStat(m.pid)
	return err == nil && f.startTicks == m.ticks
}

// walkChildren visits root's descendants breadth first through the
// children lists, calling visit with each child's PID, stat and parent; a
// child is only descended into when visit returns true. ok is false when
// the children lists are unavailable.
func walkChildren(root int, visit func(pid int, f statFields) bool) (ok bool) {
	rf, err := readStat(root)
	if err != nil {
		_, listed := childrenOf(root)
		return listed && Vanished(err) // a vanished root has no descendants
	}
	queue := []member{{root, rf.startTicks}}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		kids, listed := childrenOf(parent.pid)
		if !listed {
			if parent.pid == root {
				return false
			}
			continue // it exited while we walked: its children went to the subreaper
		}
		if !parent.sameProcess() {
			continue
		}
		for _, pid := range kids {
			if seen[pid] {
				continue
			}
			seen[pid] = true
			f, err := readStat(pid)
			if err != nil || f.ppid != parent.pid {
				continue
			}
			if visit(pid, f) {
				queue = append(queue, member{pid, f.startTicks})
			}
		}
	}
	return true
}

// pinByChildren walks the children lists from root, pinning each child with
// a pidfd and then checking that its parent is the member it was listed
// under. ok is false when the children lists are unavailable.
func pinByChildren(root int) (hs []*Handle, ok bool) {
	ok = walkChildren(root, func(pid int, _ statFields) bool {
		h, err := pinPID(pid)
		if err != nil {
			return false
		}
		hs = append(hs, h)
		return true
	})
	if !ok {
		CloseAll(hs)
		return nil, false
	}
	return hs, true
}

// descendantsByChildren lists root's descendants through the children
// lists; ok is false when they are unavailable.
func descendantsByChildren(root int) (out []Process, ok bool) {
	ok = walkChildren(root, func(pid int, _ statFields) bool {
		p, err := readProcess(pid)
		if err != nil {
			return false
		}
		out = append(out, p)
		return true
	})
	return out, ok
}

// pinPID pins the process pid is now: its handle is opened first and its
// identity and group read second, so the handle holds the process read.
func pinPID(pid int) (*Handle, error) {
	h, err := openHandle(pid)
	if err != nil {
		return nil, err
	}
	f, err := readStat(pid)
	if err != nil {
		h.close()
		return nil, err
	}
	id := Identity{PID: pid, Start: "linux:" + strconv.FormatUint(f.startTicks, 10), BootID: BootID()}
	return &Handle{id: id, os: h, pgid: f.pgrp}, nil
}
