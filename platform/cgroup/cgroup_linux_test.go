package cgroup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/waitfor"
)

// testCgroup creates a cgroup of the test's own under this process's
// cgroup, and at the end kills what is left in it (only processes the test
// started are ever in it) and removes it. It skips where cgroup v2 is not
// writable.
func testCgroup(t *testing.T) *Cgroup {
	t.Helper()
	own, err := Own()
	if err == nil {
		err = Writable(own)
	}
	if err != nil {
		t.Skipf("cgroup v2 not writable here: %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	cg, err := Create(strings.TrimSuffix(own, "/") + "/hermes-test-" + hex.EncodeToString(b[:]))
	if err != nil {
		t.Skipf("cannot create a test cgroup: %v", err)
	}
	t.Cleanup(func() {
		_ = cg.Kill()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cg.WaitEmpty(ctx)
		if err := cg.Remove(); err != nil {
			t.Errorf("remove test cgroup: %v", err)
		}
	})
	return cg
}

// startIn starts sh -c script directly inside cg and reaps it at the end.
func startIn(t *testing.T, cg *Cgroup, env []string, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	release, err := cg.SpawnAttr(cmd.SysProcAttr)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	release()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func waitMembers(t *testing.T, cg *Cgroup, n int) []int {
	t.Helper()
	var pids []int
	var err error
	if !waitfor.Try(10*time.Second, func() bool { pids, err = cg.Members(); return err != nil || len(pids) >= n }) {
		t.Fatalf("members of %s: got %v, want %d", cg.Path(), pids, n)
	}
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// A double-forked, setsid'd, environment-less grandchild is still a member:
// the cgroup holds what the process tree loses. Kill ends every member at
// once, WaitEmpty sees it, Remove removes the cgroup.
func TestCgroupHoldsAndKillsEscapedDescendants(t *testing.T) {
	parent := testCgroup(t)
	cg, err := Create(parent.Path() + "/hermes-backend-test")
	if err != nil {
		t.Fatal(err)
	}
	// The grandchild's parent exits at once: it is orphaned, in a session of
	// its own, with an empty environment.
	cmd := startIn(t, cg, []string{}, `setsid /bin/sh -c 'exec sleep 60' </dev/null >/dev/null 2>&1 & sleep 60`)
	pids := waitMembers(t, cg, 3)
	if !slices.Contains(pids, cmd.Process.Pid) {
		t.Errorf("members %v: want the started process %d", pids, cmd.Process.Pid)
	}
	for _, pid := range pids {
		if !cg.Holds(pid) {
			t.Errorf("Holds(%d): got false for a member", pid)
		}
		if parent.Holds(pid) != true {
			t.Errorf("parent.Holds(%d): got false, want true (a member of a child cgroup)", pid)
		}
	}
	if cg.Holds(os.Getpid()) {
		t.Errorf("Holds(self): got true, want false")
	}
	if populated, err := cg.Populated(); err != nil || !populated {
		t.Errorf("Populated: got %v, %v, want true", populated, err)
	}
	if err := cg.Remove(); err == nil {
		t.Fatal("Remove of a populated cgroup: got nil, want EBUSY")
	}
	start := time.Now()
	if err := cg.Kill(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := cg.WaitEmpty(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("cgroup.kill -> populated 0 in %v", time.Since(start))
	_ = cmd.Wait()
	if err := cg.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(cg.Path()); err == nil {
		t.Error("Open after Remove: got nil, want an error")
	}
}

// KillExcept leaves the spared member alone (frozen and thawed again: it
// still runs) and kills the rest.
func TestCgroupKillExcept(t *testing.T) {
	cg := testCgroup(t)
	keep := startIn(t, cg, nil, "exec sleep 60")
	doomed := startIn(t, cg, nil, "exec sleep 60")
	waitMembers(t, cg, 2)
	spared, err := cg.KillExcept(func(pid int) bool { return pid == keep.Process.Pid })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(spared, []int{keep.Process.Pid}) {
		t.Errorf("spared: got %v, want [%d]", spared, keep.Process.Pid)
	}
	if err := doomed.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("doomed: got %v, want killed", err)
	}
	if frozen, _ := cg.event("frozen"); frozen != "0" {
		t.Errorf("frozen after KillExcept: got %q, want 0", frozen)
	}
	// Still running, not frozen: it dies of a plain SIGTERM now.
	if err := keep.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := keep.Wait(); err == nil || !strings.Contains(err.Error(), "terminated") {
		t.Errorf("spared: got %v, want terminated by SIGTERM", err)
	}
}

// Signal reaches every member, checked through a pidfd; WaitEmpty ends
// with its context while members live.
func TestCgroupSignalAndWaitTimeout(t *testing.T) {
	cg := testCgroup(t)
	a := startIn(t, cg, nil, "exec sleep 60")
	b := startIn(t, cg, nil, "exec sleep 60")
	waitMembers(t, cg, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := cg.WaitEmpty(ctx); err == nil {
		t.Fatal("WaitEmpty with live members: got nil, want the context's error")
	}
	if err := cg.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*exec.Cmd{a, b} {
		if err := c.Wait(); err == nil || !strings.Contains(err.Error(), "terminated") {
			t.Errorf("pid %d: got %v, want terminated", c.Process.Pid, err)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := cg.WaitEmpty(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCgroupOf(t *testing.T) {
	if _, err := Mount(); err != nil {
		t.Skipf("no cgroup v2: %v", err)
	}
	own, err := Own()
	if err != nil {
		t.Fatal(err)
	}
	byPID, err := Of(os.Getpid())
	if err != nil || byPID != own {
		t.Errorf("Of(self): got %q, %v, want %q", byPID, err, own)
	}
	if _, err := Of(4194304 + 1); err == nil { // past PID_MAX_LIMIT
		t.Error("Of(no such pid): got nil error")
	}
	for _, bad := range []string{"", "relative", "/a/../b", "/a/"} {
		if _, err := Open(bad); err == nil {
			t.Errorf("Open(%q): got nil error, want a refusal", bad)
		}
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{
		`/sys/fs/cgroup`:       "/sys/fs/cgroup",
		`/mnt/with\040space`:   "/mnt/with space",
		`/tab\011and\134slash`: "/tab\tand\\slash",
		`/trailing\04`:         `/trailing\04`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q): got %q, want %q", in, got, want)
		}
	}
}

// A cgroup emptied and removed at once by someone else (systemd collecting
// a scope) may never send its "populated 0" event: WaitEmpty still ends,
// on its second look.
func TestCgroupWaitEmptyWhenRemovedUnderIt(t *testing.T) {
	parent := testCgroup(t)
	cg, err := Create(parent.Path() + "/removed")
	if err != nil {
		t.Fatal(err)
	}
	cmd := startIn(t, cg, nil, "exec sleep 60")
	waitMembers(t, cg, 1)
	removed := make(chan struct{})
	go func() {
		defer close(removed)
		_ = cmd.Process.Kill()   // ours: started above; the cleanup reaps it
		for cg.Remove() != nil { // as soon as it is empty: the race systemd wins
		}
	}()
	defer func() { <-removed }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := cg.WaitEmpty(ctx); err != nil {
		t.Fatalf("WaitEmpty on a cgroup removed under it: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("WaitEmpty took %v", d)
	}
}
