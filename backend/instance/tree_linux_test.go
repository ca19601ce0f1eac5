package instance

import (
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/shellgroup"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// The tree finds a child in the leader's group and one that left it with
// setsid, and tells them from a PID it does not track.
func TestTreeReachesSetsidDescendants(t *testing.T) {
	cmd := shellgroup.Start(t, "sleep 60 & setsid sleep 60 & wait")
	pid := cmd.Process.Pid
	leader, err := proc.Lookup(pid)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTree(leader, pid)
	defer tr.close()
	waitfor.Until(t, 5*time.Second, "the two children in the tree", func() bool { return tr.refresh() == nil && len(tr.members) >= 2 })
	if got := len(tr.members); got != 2 {
		t.Fatalf("tree members: got %d, want 2", got)
	}
	for _, m := range tr.alive() {
		if !tr.holds(m) {
			t.Errorf("holds(%d): got false for a live member", m)
		}
		// The setsid child is in no group of ours: kill it by hand.
		if id, err := proc.Lookup(m); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
	if tr.holds(pid) {
		t.Errorf("holds(the leader %d): got true, want false: the leader is not a member", pid)
	}
}

// prune forgets members that are gone, but takes the caller's word for
// those it names as just seen alive: a sampler that has just read them
// need not have them read again.
func TestTreePruneSkipsWhatWasJustSeen(t *testing.T) {
	cmd := shellgroup.Start(t, "sleep 60")
	leader, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTree(leader, 0)
	defer tr.close()
	gone := proc.Identity{PID: 4194000, Start: "linux:1"}     // no such process
	reported := proc.Identity{PID: 4194001, Start: "linux:2"} // none either, but named as seen
	reused := proc.Identity{PID: 4194002, Start: "linux:3"}   // named with another start: not the same
	tr.add(gone, reported, reused)
	tr.prune(reported, proc.Identity{PID: reused.PID, Start: "linux:4"})
	if got := len(tr.members); got != 1 {
		t.Fatalf("got %d members after prune, want 1 (the one named as seen)", got)
	}
	tr.prune()
	if got := len(tr.members); got != 0 {
		t.Errorf("got %d members after a prune naming none, want 0", got)
	}
}
