package handoff

import (
	"os"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/internal/sleeper"
	"hermes-desktop/platform/job"
	"hermes-desktop/platform/proc"
)

func TestMain(m *testing.M) {
	sleeper.Main()
	os.Exit(m.Run())
}

// gone is how long a killed job member may take to be seen gone.
const gone = 5 * time.Second

// handedJob is a tree's job as a successor takes it: the predecessor's
// kill-on-close job holding member, and our copy of it (InheritTreeJob).
func handedJob(t *testing.T, member *sleeper.Child) (pred *job.Job, ours *instance.TreeJob) {
	t.Helper()
	pred, err := job.NewKillOnClose(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pred.Close)
	if err := pred.Assign(member.PID()); err != nil {
		t.Fatal(err)
	}
	d, err := pred.Duplicate()
	if err != nil {
		t.Fatal(err)
	}
	if ours, err = instance.InheritTreeJob(d); err != nil {
		t.Fatal(err)
	}
	return pred, ours
}

// The job of a tree not adopted outlives the predecessor's exit while its
// shim tears the tree down, and closes once the shim has exited; with the
// shim already gone it closes at once. Before, it was held until the
// successor exited, or closed at once where instance.Adopt failed.
func TestKeepJobUntilTheShimExits(t *testing.T) {
	hs := sleeper.Start(t, 2)
	shim, member := hs[0], hs[1]
	pred, ours := handedJob(t, member)
	shimID, err := proc.Lookup(shim.PID())
	if err != nil {
		t.Fatal(err)
	}
	keepJob(shimID, ours)
	pred.Close() // the predecessor exits
	if member.Gone(200 * time.Millisecond) {
		t.Fatal("the tree died with the predecessor's exit while its shim ran, want it kept")
	}
	if err := proc.Signal(shimID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !member.Gone(gone) {
		t.Errorf("the tree still runs %v after its shim exited, want the job closed", gone)
	}
}

func TestKeepJobOfAShimGone(t *testing.T) {
	hs := sleeper.Start(t, 1)
	pred, ours := handedJob(t, hs[0])
	keepJob(proc.Identity{PID: 1 << 30, Start: "1"}, ours) // no such process
	pred.Close()
	if !hs[0].Gone(gone) {
		t.Errorf("the tree of a shim gone still runs %v after the predecessor's exit, want it ended", gone)
	}
}
