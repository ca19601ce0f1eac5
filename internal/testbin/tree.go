package testbin

import (
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// Tree is the processes a test started, found through the process table
// under the one it started itself (the root). Every member seen is kept by
// identity, so it is still known once its parent is gone (reparented on
// Unix, a dangling parent PID on Windows). It needs nothing but the
// process table, so it works where environments cannot be read (Tag).
type Tree struct {
	t    testing.TB
	root proc.Identity
	mu   sync.Mutex
	seen map[int]proc.Identity // guarded by mu; the root included
}

// FollowTree follows the tree under root. Its cleanup waits briefly for
// every member seen to be gone, kills those still running, each through an
// identity-checked handle, and reports them as a failure: a correct
// teardown leaves none.
func FollowTree(t testing.TB, root proc.Identity) *Tree {
	t.Helper()
	tr := &Tree{t: t, root: root, seen: map[int]proc.Identity{root.PID: root}}
	t.Cleanup(func() {
		left := tr.WaitGone(3 * time.Second)
		for _, id := range left {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
		if len(left) > 0 && !t.Failed() {
			t.Errorf("processes left behind by the test (killed now): %v", left)
		}
	})
	return tr
}

// Running adds the root's current descendants to the members seen and
// returns those still running, root first if it is. Descendants are looked
// for only while the table's process at the root's PID is the root itself:
// once the root is gone its PID may be another's, whose children are not
// this test's.
func (tr *Tree) Running() []proc.Identity {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if table, err := proc.Snapshot(); err == nil {
		if root, ok := table.Find(tr.root.PID); ok && root.Identity().Start == tr.root.Start {
			for _, p := range table.Descendants(tr.root.PID) {
				if _, ok := tr.seen[p.PID]; !ok {
					tr.seen[p.PID] = p.Identity()
				}
			}
		}
	}
	var out []proc.Identity
	for _, id := range tr.seen {
		if running, err := proc.Running(id); err != nil || running {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b proc.Identity) int {
		switch {
		case a.PID == tr.root.PID:
			return -1
		case b.PID == tr.root.PID:
			return 1
		}
		return a.PID - b.PID
	})
	return out
}

// WaitRunning waits up to d for at least n running members, the root
// included, and returns them; it fails the test if they never appear.
func (tr *Tree) WaitRunning(n int, d time.Duration) []proc.Identity {
	tr.t.Helper()
	var ids []proc.Identity
	if !waitfor.Try(d, func() bool { ids = tr.Running(); return len(ids) >= n }) {
		tr.t.Fatalf("processes in the tree of %s: got %d %v, want %d", tr.root, len(ids), ids, n)
	}
	return ids
}

// WaitGone waits up to d for every member seen to be gone and returns
// those still running.
func (tr *Tree) WaitGone(d time.Duration) []proc.Identity {
	var left []proc.Identity
	waitfor.Try(d, func() bool { left = tr.Running(); return len(left) == 0 })
	return left
}
