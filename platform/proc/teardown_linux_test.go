package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/shellgroup"
	"hermes-desktop/internal/waitfor"
)

// startTree starts script as the leader of its own process group. The
// script prints "<name> <pid>" for each process it starts, then "ready";
// startTree returns the identities by name; the cleanup SIGKILLs them (a
// setsid one is outside the group), then the group and the leader.
func startTree(t *testing.T, script string) (*exec.Cmd, map[string]Identity) {
	t.Helper()
	cmd, r := shellgroup.Piped(t, script)
	ids := map[string]Identity{}
	t.Cleanup(func() {
		for _, id := range ids {
			_ = Signal(id, syscall.SIGKILL)
		}
	})
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("script never got ready: %v", err)
		}
		f := strings.Fields(line)
		if len(f) == 1 && f[0] == "ready" {
			return cmd, ids
		}
		if len(f) != 2 {
			t.Fatalf("script said %q", line)
		}
		pid, _ := strconv.Atoi(f[1])
		if ids[f[0]], err = Lookup(pid); err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
	}
}

// waitLeftGroup waits until the process id has left group (setsid).
func waitLeftGroup(t *testing.T, id Identity, group int) {
	t.Helper()
	waitfor.Until(t, 10*time.Second, "the setsid member to leave the group", func() bool {
		p, err := Stat(id.PID)
		return err == nil && p.PGID != group
	})
}

func running(id Identity) bool {
	alive, err := Running(id)
	return err != nil || alive
}

// TestTeardownEndsARealTree tears down a group with a plain member, one that
// left the group with setsid, one that ignores SIGTERM, and one that forks a
// child outside the group when asked to stop (born during the grace). The
// root outlives SIGTERM (a handler, which its children do not inherit), as
// a shim does: a re-pin walks from the root.
func TestTeardownEndsARealTree(t *testing.T) {
	born := filepath.Join(t.TempDir(), "born")
	cmd, ids := startTree(t, `trap : TERM
sleep 60 & echo plain $!
setsid sleep 60 & echo setsid $!
(trap "" TERM; while :; do sleep 0.05; done) & echo stubborn $!
(trap 'setsid sleep 60 & echo $! >`+born+`' TERM; while :; do sleep 0.05; done) & echo breeder $!
echo ready; while :; do sleep 0.05; done`)
	root := cmd.Process.Pid
	waitLeftGroup(t, ids["setsid"], root)
	leaderID, err := Lookup(root)
	if err != nil {
		t.Fatal(err)
	}
	leader, err := Open(leaderID)
	if err != nil {
		t.Fatal(err)
	}
	defer leader.Close()
	ids["root"] = leaderID
	td := &Teardown{Root: root, Leader: leader, Group: root}
	defer td.Close()

	outside, err := td.Term()
	if err != nil {
		t.Fatalf("Term: %v", err)
	}
	if outside != 1 {
		t.Errorf("Term signalled one by one: got %d, want 1 (only the setsid member is outside the group)", outside)
	}
	for _, name := range []string{"plain", "setsid"} {
		waitfor.Until(t, 10*time.Second, name+" to end on SIGTERM", func() bool { return !running(ids[name]) })
	}
	waitfor.Until(t, 10*time.Second, "the breeder's child", func() bool { _, err := os.Stat(born); return err == nil })
	data, _ := os.ReadFile(born)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if ids["born"], err = Lookup(pid); err != nil {
		t.Fatalf("the breeder's child %d: %v", pid, err)
	}
	for _, name := range []string{"stubborn", "breeder", "born", "root"} {
		if !running(ids[name]) {
			t.Fatalf("%s ended before Kill; it ignores SIGTERM or was born after it", name)
		}
	}

	// The plain and setsid members are gone now: no error for them.
	if err := td.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), KillWait)
	defer cancel()
	if !td.Wait(ctx) {
		t.Fatal("Wait: the tree outlived SIGKILL")
	}
	for name, id := range ids {
		if running(id) {
			t.Errorf("%s (%s) survived the teardown", name, id)
		}
	}
}

// TestTeardownSkipsAndSpares checks that Skip protects a member and that a
// Teardown never signals its own root when given no Leader (the shim's
// case, where the root is the caller).
func TestTeardownSkipsAndSpares(t *testing.T) {
	cmd, ids := startTree(t, `sleep 60 & echo kept $!
sleep 60 & echo doomed $!
echo ready; wait`)
	root := cmd.Process.Pid
	rootID, err := Lookup(root)
	if err != nil {
		t.Fatal(err)
	}
	td := &Teardown{Root: root, Skip: func(pid int) bool { return pid == ids["kept"].PID }}
	defer td.Close()
	if err := td.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), KillWait)
	defer cancel()
	if !td.Wait(ctx) {
		t.Fatal("Wait: the doomed member outlived SIGKILL")
	}
	if running(ids["doomed"]) {
		t.Error("the doomed member survived")
	}
	if !running(ids["kept"]) {
		t.Error("a skipped member was killed")
	}
	if !running(rootID) {
		t.Error("the root was killed though it was no Leader")
	}
}

// TestTeardownPinsWhatMembersLists: with a lister (the shim's cgroup), Term
// pins what it lists rather than walking from Root, and never signals a
// listed PID the tree no longer holds, nor Root; Kill walks all the same.
func TestTeardownPinsWhatMembersLists(t *testing.T) {
	cmd, ids := startTree(t, `trap : TERM
sleep 60 & echo plain $!
setsid sleep 60 & echo setsid $!
sleep 60 & echo unlisted $!
echo ready; while :; do sleep 0.05; done`)
	root := cmd.Process.Pid
	waitLeftGroup(t, ids["setsid"], root)
	// A stranger listed by mistake: this test process, which must live.
	stranger := os.Getpid()
	listed := []int{root, ids["plain"].PID, ids["setsid"].PID, stranger}
	td := &Teardown{
		Root: root, Group: root,
		Members: func() ([]int, error) { return listed, nil },
		Held:    func(pid int) bool { return pid != stranger },
	}
	defer td.Close()
	outside, err := td.Term()
	if err != nil {
		t.Fatalf("Term: %v", err)
	}
	if outside != 1 {
		t.Errorf("Term signalled %d one by one, want 1: the setsid member (the plain one had the group's)", outside)
	}
	for _, name := range []string{"plain", "setsid", "unlisted"} {
		waitfor.Until(t, 10*time.Second, name+" to end on SIGTERM", func() bool { return !running(ids[name]) })
	}
	if got := len(td.pinned); got != 2 {
		t.Errorf("pinned %d, want the 2 listed members the tree holds", got)
	}
	if err := td.Kill(); err != nil { // walks from Root: nothing is left to find
		t.Fatalf("Kill: %v", err)
	}
}

// TestTeardownEndWithKillAll runs End over a tree with a member that
// ignores SIGTERM: KillAll is tried once, at the first Kill; a failing one
// is reported as ErrKillAll and the walk still ends the tree; Trace hears
// each signal go out.
func TestTeardownEndWithKillAll(t *testing.T) {
	cmd, ids := startTree(t, `sleep 60 & echo plain $!
(trap "" TERM; while :; do sleep 0.05; done) & echo stubborn $!
echo ready; wait`)
	root := cmd.Process.Pid
	rootID, err := Lookup(root)
	if err != nil {
		t.Fatal(err)
	}
	leader, err := Open(rootID)
	if err != nil {
		t.Fatal(err)
	}
	defer leader.Close()
	calls := 0
	var events []string
	td := &Teardown{
		Root: root, Leader: leader, Group: root,
		KillAll: func() error { calls++; return syscall.EPERM },
		Trace:   func(event, detail string) { events = append(events, event) },
	}
	defer td.Close()
	if !td.End(context.Background(), 100*time.Millisecond) {
		t.Fatalf("End: still alive %v", td.Alive())
	}
	if err := td.Kill(); errors.Is(err, ErrKillAll) || calls != 1 {
		t.Errorf("a second Kill: got %v and %d KillAll calls, want no ErrKillAll and 1 call", err, calls)
	}
	if want := []string{"term-sent", "kill-sent"}; !slices.Equal(events, want) {
		t.Errorf("traced %v, want %v", events, want)
	}
	for name, id := range ids {
		if running(id) {
			t.Errorf("%s survived End", name)
		}
	}
}

// TestStopperEndsOneProcessAlone: a Stopper signals its process and none of
// that process's children.
func TestStopperEndsOneProcessAlone(t *testing.T) {
	cmd, ids := startTree(t, `trap "" TERM
sleep 60 & echo child $!
echo ready; while :; do sleep 0.05; done`)
	rootID, err := Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s, err := Terminate(rootID, time.Second, now)
	if err != nil {
		t.Fatalf("Terminate: %v", err)
	}
	s.Escalate(now) // within the grace: nothing
	if !running(rootID) {
		t.Fatal("the process ended before the grace was over (it ignores SIGTERM)")
	}
	s.Escalate(now.Add(2 * time.Second))
	waitfor.Until(t, 10*time.Second, "the stopped process to exit", func() bool {
		p, err := Stat(rootID.PID)
		return err != nil || p.Zombie
	})
	if !running(ids["child"]) {
		t.Error("the stopped process's child was signalled; a Stopper ends its process alone")
	}
}

// A root that is not the caller's child exits on SIGTERM (the remote
// watchdog's backend, a boot reap's orphan), while its child ignores
// SIGTERM and forks during the grace: Kill finds the grandchild by walking
// from the child, which outlived the root and is still pinned.
func TestTeardownKillFindsChildrenBornAfterRootExited(t *testing.T) {
	grandFile := filepath.Join(t.TempDir(), "grand")
	cmd, ids := startTree(t, `sh -c 'trap "" TERM; sleep 0.6; sleep 60 & echo $! > `+grandFile+`; wait' &
echo child $!
echo ready
exec sleep 60`)
	root, err := Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// Not the test's child any more: collected at once when it exits, so
	// its PID is free for another process during the grace.
	go func() { _, _ = cmd.Process.Wait() }()
	td := &Teardown{Root: root.PID, Leader: h}
	defer td.Close()
	ended := make(chan bool, 1)
	go func() { ended <- td.End(context.Background(), 1500*time.Millisecond) }()
	var grand Identity
	waitfor.Until(t, 5*time.Second, "the grandchild born during the grace", func() bool {
		b, err := os.ReadFile(grandFile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid == 0 {
			return false
		}
		grand, err = Lookup(pid)
		return err == nil
	})
	t.Cleanup(func() { _ = Signal(grand, syscall.SIGKILL) })
	if !<-ended {
		t.Errorf("End: got not gone, want every pinned process gone; alive %v", td.Alive())
	}
	if running(ids["child"]) {
		t.Errorf("the child %d that ignores SIGTERM: got running after End, want killed", ids["child"].PID)
	}
	if running(grand) {
		t.Errorf("the grandchild %d born during the grace: got running after End, want killed", grand.PID)
	}
}

// Once Root has exited, its PID may be another process's: Kill must not
// walk from it. (The PID's reuse is played by pointing Root at an
// unrelated process, which is what the same number names after reuse.)
func TestTeardownKillDoesNotWalkFromAnExitedRoot(t *testing.T) {
	other, others := startTree(t, `sleep 60 & echo kid $!
echo ready
wait`)
	kid := others["kid"]
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill() })
	// Not the test's child for long: collected as soon as it exits, so its
	// PID is free, as a root that is not the caller's child is.
	go func() { _ = victim.Wait() }()
	id, err := Lookup(victim.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	td := &Teardown{Root: id.PID, Leader: h}
	defer td.Close()
	if _, err := td.Term(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !td.Wait(ctx) {
		t.Fatal("the root did not exit on SIGTERM")
	}
	td.Root = other.Process.Pid // the root's PID, now another process's
	_ = td.Kill()
	time.Sleep(100 * time.Millisecond)
	if !running(kid) {
		t.Errorf("the other process's child %d: got killed, want untouched", kid.PID)
	}
}

// With KillGroup, Kill sends SIGKILL to the group as a whole, so a member
// the listing missed (forked into the group after it) is killed too; the
// launcher tears down its own uncollected child's group this way.
func TestTeardownKillGroupReachesUnlistedMembers(t *testing.T) {
	cmd, ids := startTree(t, `trap "" TERM
(trap "" TERM; exec sleep 60) & echo unlisted $!
echo ready; wait`)
	root := cmd.Process.Pid
	rootID, err := Lookup(root)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(rootID)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	td := &Teardown{
		Root: root, Leader: h, Group: root, KillGroup: true,
		Members: func() ([]int, error) { return nil, nil }, // the listing missed it
		Held:    func(int) bool { return true },
	}
	defer td.Close()
	if err := td.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	waitfor.Until(t, 5*time.Second, "the unlisted group member to be killed", func() bool { return !running(ids["unlisted"]) })
}
