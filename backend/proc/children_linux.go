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
		data, err := readProcFile(dir+"/"+task.Name()+"/children", buf[:])
		if notFound(err) {
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

// pinByChildren walks the children lists from root, pinning each child with
// a pidfd and then checking that its parent is the member it was listed
// under. ok is false when the children lists are unavailable.
func pinByChildren(root int) (hs []*Handle, ok bool) {
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		kids, ok := childrenOf(parent)
		if !ok {
			if parent == root {
				CloseAll(hs)
				return nil, false
			}
			continue // the member exited while we walked: its children come to the subreaper
		}
		for _, pid := range kids {
			if seen[pid] {
				continue
			}
			seen[pid] = true
			h, err := openHandle(pid)
			if err != nil {
				continue
			}
			f, err := readStat(pid)
			if err != nil || f.ppid != parent {
				h.close()
				continue
			}
			id := Identity{PID: pid, Start: "linux:" + strconv.FormatUint(f.startTicks, 10), BootID: BootID()}
			hs = append(hs, &Handle{id: id, os: h, pgid: f.pgrp})
			queue = append(queue, pid)
		}
	}
	return hs, true
}
