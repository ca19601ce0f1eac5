package proc

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// Tree is a process tree the caller owns: a leader, the process group it
// leads, and every descendant seen so far, each held through a Handle. Once a
// member has been seen it stays tracked even if it is later reparented away
// (to init, after its parent died), so a tree can be torn down completely
// even without being a subreaper.
//
// A Tree is not safe for concurrent use.
type Tree struct {
	leader int
	// pgid is the group to signal as a whole; 0 when the caller cannot pin
	// it (see SignalGroup) or the OS has no groups.
	pgid    int
	members map[int]*Handle
}

// NewTree starts tracking the tree under leader. pgid is signalled as a
// group only if non-zero: pass it only while the group id is pinned (the
// leader is the caller or the caller's unreaped child).
func NewTree(leader, pgid int) *Tree {
	return &Tree{leader: leader, pgid: pgid, members: map[int]*Handle{}}
}

// Refresh adds every current member of the group and every descendant of
// the leader and of already-tracked members. A process is only ever added
// after a handle on it was opened and its identity checked, so the set never
// contains a stranger that took a recycled PID.
func (t *Tree) Refresh() error {
	table, err := Snapshot()
	if err != nil {
		return fmt.Errorf("proc: refresh tree of %d: %w", t.leader, err)
	}
	var rows []Process
	if t.pgid > 0 {
		rows = append(rows, table.Group(t.pgid)...)
	}
	roots := []int{t.leader}
	for pid, h := range t.members {
		if !h.Exited() {
			roots = append(roots, pid)
		}
	}
	for _, r := range roots {
		rows = append(rows, table.Descendants(r)...)
	}
	for _, p := range rows {
		if p.PID == t.leader || t.members[p.PID] != nil {
			continue
		}
		h, err := Open(p.Identity())
		if err != nil {
			continue // gone already, or not the process we listed
		}
		t.members[p.PID] = h
	}
	return nil
}

// Signal sends sig to the group (when pinned) and to every tracked member
// still alive that the group signal did not reach: each process gets it
// once, since a second SIGTERM makes many programs abort a graceful
// shutdown. Members that are gone are not errors.
func (t *Tree) Signal(sig syscall.Signal) error {
	var errs []error
	grouped := false
	if t.pgid > 0 {
		err := SignalGroup(t.pgid, sig)
		grouped = err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			errs = append(errs, err)
		}
	}
	for pid, h := range t.members {
		if grouped {
			if p, err := Stat(pid); err == nil && p.PGID == t.pgid && p.Start == h.id.Start {
				continue
			}
		}
		if err := h.Signal(sig); err != nil && !IsGone(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Alive returns the PIDs of tracked members that have not exited.
func (t *Tree) Alive() []int {
	var out []int
	for pid, h := range t.members {
		if !h.Exited() {
			out = append(out, pid)
		}
	}
	return out
}

// Wait blocks until every tracked member has exited or ctx ends, and
// reports whether all did.
func (t *Tree) Wait(ctx context.Context) bool {
	for _, h := range t.members {
		if !h.Wait(ctx) {
			return false
		}
	}
	return true
}

// Size returns how many members are tracked.
func (t *Tree) Size() int { return len(t.members) }

// Close releases every handle.
func (t *Tree) Close() {
	for pid, h := range t.members {
		h.Close()
		delete(t.members, pid)
	}
}
