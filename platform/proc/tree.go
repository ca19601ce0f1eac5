package proc

import (
	"context"
	"fmt"
	"syscall"
)

// Tree is a process tree the caller owns: a leader, the process group it
// leads, and every descendant seen so far, tracked by identity even once
// reparented away (to init), so a caller that is no subreaper can still end
// it all. Members are signalled through handles opened and checked at
// signal time. A Tree is not safe for concurrent use.
type Tree struct {
	leader   int
	leaderID Identity // the leader's identity; zero when unknown
	// pgid is the group to signal as a whole; 0 when the caller cannot pin
	// it (see SignalGroup) or the OS has no groups.
	pgid    int
	members map[int]Identity
}

// NewTree starts tracking the tree under leader. pgid, signalled as a group
// when non-zero, must be pinned (the caller's, or its uncollected child's).
func NewTree(leader Identity, pgid int) *Tree {
	return &Tree{leader: leader.PID, leaderID: leader, pgid: pgid, members: map[int]Identity{}}
}

// Add tracks processes known to belong to the tree (from a sampler's walk).
func (t *Tree) Add(ids ...Identity) {
	for _, id := range ids {
		if id.PID != t.leader && id.PID > 1 {
			t.members[id.PID] = id
		}
	}
}

// Refresh adds every current member of the group and every descendant of
// the leader and of the members still alive.
func (t *Tree) Refresh() error {
	table, err := Snapshot()
	if err != nil {
		return fmt.Errorf("proc: refresh tree of %d: %w", t.leader, err)
	}
	var rows []Process
	if t.pgid > 0 {
		rows = append(rows, table.Group(t.pgid)...)
	}
	var roots []int
	// The leader's PID counts as a root only while it is still the leader:
	// one that is not our child may be collected and its PID reused.
	if lp, ok := table.Find(t.leader); ok && (t.leaderID.Start == "" || lp.Start == t.leaderID.Start) {
		roots = append(roots, t.leader)
	}
	for pid, id := range t.members {
		if p, ok := table.Find(pid); ok && p.Start == id.Start {
			roots = append(roots, pid)
		}
	}
	for _, r := range roots {
		rows = append(rows, table.Descendants(r)...)
	}
	for _, p := range rows {
		if _, ok := t.members[p.PID]; !ok && p.PID != t.leader {
			t.members[p.PID] = p.Identity()
		}
	}
	return nil
}

// Prune forgets members that have exited (or whose PID was reused), but
// for those in alive (just seen running, as by a sampler's walk), which it
// does not look at again.
func (t *Tree) Prune(alive ...Identity) {
	seen := make(map[int]string, len(alive)) // PID -> start marker
	for _, id := range alive {
		seen[id.PID] = id.Start
	}
	for pid, id := range t.members {
		if start, ok := seen[pid]; ok && start == id.Start {
			continue
		}
		if running, err := Running(id); err == nil && !running {
			delete(t.members, pid)
		}
	}
}

// Signal sends sig to the group (when pinned) and to every tracked member
// still alive that the group signal did not reach, each process once, as a
// Teardown does: members are pinned by identity first, so a recycled PID is
// never hit. Members that are gone are not errors.
func (t *Tree) Signal(sig syscall.Signal) error {
	hs := make([]*Handle, 0, len(t.members))
	for _, id := range t.members {
		if h, err := Open(id); err == nil { // else gone, or its PID now names someone else
			hs = append(hs, h)
		}
	}
	defer CloseAll(hs)
	_, err := signalOnce(t.pgid, hs, sig)
	return err
}

// Alive returns the PIDs of tracked members that have not exited.
func (t *Tree) Alive() []int {
	var out []int
	for pid, id := range t.members {
		if running, err := Running(id); err != nil || running {
			out = append(out, pid)
		}
	}
	return out
}

// Holds reports whether the member tracked as pid is still running: false
// for a PID the tree does not track, or whose process exited (the PID may
// be another's now). One check, where Alive checks every member.
func (t *Tree) Holds(pid int) bool {
	id, ok := t.members[pid]
	if !ok {
		return false
	}
	running, err := Running(id)
	return err != nil || running
}

// Wait blocks until every tracked member has exited or ctx ends, and
// reports whether all did.
func (t *Tree) Wait(ctx context.Context) bool {
	for _, id := range t.members {
		h, err := Open(id)
		if err != nil {
			continue // already gone
		}
		exited := h.Wait(ctx)
		h.Close()
		if !exited {
			return false
		}
	}
	return true
}

// Size returns how many members are tracked.
func (t *Tree) Size() int { return len(t.members) }

// Close forgets every member.
func (t *Tree) Close() { clear(t.members) }
