package instance

import (
	"fmt"

	"hermes-desktop/platform/proc"
)

// tree is the process tree an instance owns: a leader, the process group
// it leads, and every descendant seen so far, tracked by identity even once
// reparented away (to init), so that the launcher, where it is no
// subreaper, can still end it all: its teardown lists them (members) and
// pins each by handle before it signals it. Not safe for concurrent use:
// the instance holds mu.
type tree struct {
	leader   int
	leaderID proc.Identity // the leader's identity; zero when unknown
	// pgid is the group to signal as a whole; 0 when the caller cannot pin
	// it (see proc.SignalGroup) or the OS has no groups.
	pgid    int
	members map[int]proc.Identity
}

// newTree starts tracking the tree under leader. pgid, signalled as a group
// when non-zero, must be pinned (the caller's, or its uncollected child's).
func newTree(leader proc.Identity, pgid int) *tree {
	return &tree{leader: leader.PID, leaderID: leader, pgid: pgid, members: map[int]proc.Identity{}}
}

// add tracks processes known to belong to the tree (from a sampler's walk).
func (t *tree) add(ids ...proc.Identity) {
	for _, id := range ids {
		if id.PID != t.leader && id.PID > 1 {
			t.members[id.PID] = id
		}
	}
}

// refresh adds every current member of the group and every descendant of
// the leader and of the members still alive.
func (t *tree) refresh() error {
	table, err := proc.Snapshot()
	if err != nil {
		return fmt.Errorf("instance: refresh the tree of %d: %w", t.leader, err)
	}
	var rows []proc.Process
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

// prune forgets members that have exited (or whose PID was reused), but
// for those in alive (just seen running, as by a sampler's walk), which it
// does not look at again.
func (t *tree) prune(alive ...proc.Identity) {
	seen := make(map[int]string, len(alive)) // PID -> start marker
	for _, id := range alive {
		seen[id.PID] = id.Start
	}
	for pid, id := range t.members {
		if start, ok := seen[pid]; ok && start == id.Start {
			continue
		}
		if running, err := proc.Running(id); err == nil && !running {
			delete(t.members, pid)
		}
	}
}

// alive returns the PIDs of tracked members that have not exited.
func (t *tree) alive() []int {
	var out []int
	for pid, id := range t.members {
		if running, err := proc.Running(id); err != nil || running {
			out = append(out, pid)
		}
	}
	return out
}

// holds reports whether the member tracked as pid is still running: false
// for a PID the tree does not track, or whose process exited (the PID may
// be another's now). One check, where alive checks every member.
func (t *tree) holds(pid int) bool {
	id, ok := t.members[pid]
	if !ok {
		return false
	}
	running, err := proc.Running(id)
	return err != nil || running
}

// close forgets every member.
func (t *tree) close() { clear(t.members) }
