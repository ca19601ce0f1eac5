package proc

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/shellgroup"
	"hermes-desktop/internal/waitfor"
)

// startGroup starts a shell script as the leader of its own process group
// and makes sure it (and anything it leaves) is gone at the end.
func startGroup(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd, out := shellgroup.Piped(t, script)
	// Every script says "ready" once its traps are set.
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatalf("script never got ready: %v", err)
	}
	t.Cleanup(func() { // a setsid member is outside the group
		hs, _ := PinTree(cmd.Process.Pid, nil)
		for _, h := range hs {
			_ = h.Signal(syscall.SIGKILL)
		}
		CloseAll(hs)
	})
	return cmd
}

func waitDescendants(t *testing.T, root, n int) {
	t.Helper()
	got := 0
	if !waitfor.Try(10*time.Second, func() bool {
		hs, _ := PinDescendants(root)
		CloseAll(hs)
		got = len(hs)
		return got >= n
	}) {
		t.Fatalf("descendants of %d: got %d, want %d", root, got, n)
	}
}

func TestPinTree(t *testing.T) {
	cmd := startGroup(t, "sleep 60 & setsid sleep 60 & echo ready; wait")
	root := cmd.Process.Pid
	waitDescendants(t, root, 2)
	hs, err := PinTree(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer CloseAll(hs)
	if len(hs) != 2 {
		t.Fatalf("PinTree: got %d handles, want 2 (the plain and the setsid child)", len(hs))
	}
	for _, h := range hs {
		if h.Identity().PID == root {
			t.Errorf("PinTree pinned the root %d", root)
		}
	}
	skipped := hs[0].Identity().PID
	rest, err := PinTree(root, func(pid int) bool { return pid == skipped })
	if err != nil {
		t.Fatal(err)
	}
	defer CloseAll(rest)
	if len(rest) != 1 || rest[0].Identity().PID == skipped {
		t.Errorf("PinTree with skip(%d): got %d handles, want the other one only", skipped, len(rest))
	}
}

func TestStopperEscalatesAfterTheGrace(t *testing.T) {
	cmd := startGroup(t, `trap "" TERM; echo ready; while :; do sleep 0.05; done`)
	id, err := Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	now := time.Now()
	s, err := Terminate(id, time.Minute, now)
	if err != nil {
		t.Fatal(err)
	}
	s.Escalate(now.Add(time.Second)) // within the grace: no SIGKILL
	select {
	case <-exited:
		t.Fatal("a SIGTERM-ignoring process died before the grace period was over")
	case <-time.After(300 * time.Millisecond):
	}
	s.Escalate(now.Add(2 * time.Minute))
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("still alive after Escalate past the grace period")
	}
	if _, err := Terminate(id, time.Second, time.Now()); err != nil {
		t.Errorf("Terminate of a gone process: got %v, want nil", err)
	}
}
