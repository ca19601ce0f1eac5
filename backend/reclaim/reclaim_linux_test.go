package reclaim

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/proc"

	"hermes-desktop/internal/waitfor"
)

// TestMain makes the test binary what the launcher is on Linux: a child
// subreaper, which the orphans of its children come to, with the one loop
// that collects them (proc.CollectOrphans).
func TestMain(m *testing.M) {
	if err := proc.SetChildSubreaper(true); err != nil {
		panic(err) // a test binary's setup; nothing would be tested without it
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); proc.CollectOrphans(ctx, slog.Default()) }()
	code := m.Run()
	cancel()
	<-done
	os.Exit(code)
}

const ourNonce = "0123456789abcdef0123456789abcdef"

// newOrphan starts a shell that starts script in the background and exits,
// so script's process is reparented to this test binary, as a backend's
// descendants are when its shim is killed. env is added to the
// environment both inherit. A cleanup kills the orphan if it still runs.
func newOrphan(t *testing.T, script string, env ...string) proc.Identity {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "("+script+") >/dev/null 2>&1 & echo $!")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	waited, err := proc.StartChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	err = cmd.Wait()
	waited()
	if err != nil {
		t.Fatalf("orphan's parent: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("orphan's PID %q: %v", line, err)
	}
	id, err := proc.Lookup(pid)
	if err != nil {
		t.Fatalf("orphan %d: %v", pid, err)
	}
	// Its parent has exited, so the kernel has reparented it already.
	if p, err := proc.Stat(pid); err != nil || p.PPID != os.Getpid() {
		t.Fatalf("orphan %d: %+v, %v; want this test binary (%d) its parent", pid, p, err, os.Getpid())
	}
	t.Cleanup(func() { _ = proc.Signal(id, syscall.SIGKILL) }) // identity-checked: never a reused PID
	return id
}

// alive reports whether id still runs: neither gone nor a zombie.
func alive(t *testing.T, id proc.Identity) bool {
	t.Helper()
	ok, err := proc.Running(id)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// runReclaimer runs r until the test ends.
func runReclaimer(t *testing.T, r *Reclaimer) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// awaitGone waits (for as long as a loaded machine may need) until id no
// longer runs.
func awaitGone(t *testing.T, id proc.Identity, why string) {
	t.Helper()
	if !waitfor.Try(30*time.Second, func() bool { return !alive(t, id) }) {
		t.Fatalf("orphan %s still runs: %s", id, why)
	}
}

func newReclaimer(grace time.Duration, helper string) *Reclaimer {
	r := New(os.Getpid(), grace, helper, slog.Default())
	r.Expect(ourNonce) // a backend start whose shim is gone since
	return r
}

// TestReclaimStopsOrphansWithOurNonce: a process that inherited the nonce
// of one of our backends is stopped once it is reparented to us.
func TestReclaimStopsOrphansWithOurNonce(t *testing.T) {
	id := newOrphan(t, "exec sleep 600", hermes.EnvParentNonce+"="+ourNonce)
	runReclaimer(t, newReclaimer(10*time.Second, ""))
	awaitGone(t, id, "it carries our backend's nonce")
}

// TestReclaimStopsSampledDescendants: an orphan without the nonce (it
// cleared its environment) is ours too if a sample of our backend's tree
// saw it.
func TestReclaimStopsSampledDescendants(t *testing.T) {
	id := newOrphan(t, "exec sleep 600")
	r := newReclaimer(10*time.Second, "")
	r.Know(ourNonce, []proc.Identity{id})
	runReclaimer(t, r)
	awaitGone(t, id, "a sample of our backend's tree saw it")
}

// TestReclaimKillsWhatIgnoresTerm: an orphan that ignores SIGTERM is
// killed once the grace period is over.
func TestReclaimKillsWhatIgnoresTerm(t *testing.T) {
	id := newOrphan(t, `trap "" TERM; exec sleep 600`, hermes.EnvParentNonce+"="+ourNonce)
	runReclaimer(t, newReclaimer(100*time.Millisecond, ""))
	awaitGone(t, id, "SIGKILL follows SIGTERM after the grace period")
}

// TestReclaimFinishKillsAtShutdown: orphans still held when the launcher
// shuts down are killed before Run returns.
func TestReclaimFinishKillsAtShutdown(t *testing.T) {
	id := newOrphan(t, `trap "" TERM; exec sleep 600`, hermes.EnvParentNonce+"="+ourNonce)
	r := newReclaimer(100*time.Millisecond, "")
	if !r.pass() {
		t.Fatal("first pass: no orphan pending, want the one with our nonce")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Run(ctx)
	awaitGone(t, id, "Run kills what it holds when its context ends")
}

// TestReclaimLeavesOthersAlone: a pass signals no child that is not
// positively ours: a stranger's orphan, one with another launcher's nonce,
// a helper's (the URL opener's browser), and a child we started ourselves.
func TestReclaimLeavesOthersAlone(t *testing.T) {
	const helper = "helper-1"
	r := newReclaimer(100*time.Millisecond, helper)
	cases := map[string]proc.Identity{
		"stranger":      newOrphan(t, "exec sleep 600"),
		"another nonce": newOrphan(t, "exec sleep 600", hermes.EnvParentNonce+"=ffffffffffffffffffffffffffffffff"),
		"helper":        newOrphan(t, "exec sleep 600", hermes.EnvParentNonce+"="+ourNonce, HelperEnv+"="+helper),
		"our child":     startLeader(t, r),
	}
	if r.pass() {
		t.Errorf("pass: orphans pending, want none")
	}
	for what, id := range cases {
		if _, held := r.orphans[id.PID]; held || !alive(t, id) {
			t.Errorf("%s %s: held %v, alive %v; want left alone", what, id, held, alive(t, id))
		}
	}
}

// startLeader starts a child with our nonce the way the launcher starts a
// shim, registered with proc, and waits for it when the test ends.
func startLeader(t *testing.T, r *Reclaimer) proc.Identity {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.Env = append(os.Environ(), hermes.EnvParentNonce+"="+ourNonce)
	r.Expect(ourNonce)
	waited, err := proc.StartChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		waited()
	})
	id, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
