package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// zombieWait is the promise: no zombie under the launcher or a shim this
// long after any child exit.
const zombieWait = 5 * time.Second

// fakeOpener writes an xdg-open that does what xdg-open does when it hands
// off to a browser: it forks a child and exits at once; the child exits
// soon after. It returns a PATH with it first.
func fakeOpener(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\n/bin/sh -c 'exit 0' &\nexit 0\n"
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + dir + ":" + os.Getenv("PATH")
}

// zombiesUnder lists the zombie children of pids, as "pid(parent)".
func zombiesUnder(pids ...int) []string {
	table, err := proc.Snapshot()
	if err != nil {
		return []string{err.Error()}
	}
	var zs []string
	for _, p := range table {
		for _, parent := range pids {
			if p.Zombie && p.PPID == parent {
				zs = append(zs, strconv.Itoa(p.PID)+"(under "+strconv.Itoa(parent)+")")
			}
		}
	}
	return zs
}

// checkNoZombies fails if a zombie is left under the launcher or its
// shims zombieWait after the last child exit (since).
func checkNoZombies(t *testing.T, l *testbin.Launcher, since time.Time) {
	t.Helper()
	var zs []string
	if !waitfor.Try(zombieWait-time.Since(since), func() bool { // the promise runs from since, not from now
		under := []int{l.Cmd.Process.Pid}
		for _, b := range status(t, l).Backends {
			if b.ShimPID > 0 {
				under = append(under, b.ShimPID)
			}
		}
		zs = zombiesUnder(under...)
		return len(zs) == 0
	}) {
		t.Fatalf("zombies %v after %v: %v", zombieWait, time.Since(since).Round(time.Millisecond), zs)
	}
}

// The launcher is a child subreaper: what its shims leave when they are
// killed (the backend, reparented to it) and what the opener leaves (the
// child xdg-open hands off to) are its to reap, though it started neither.
// Three shim crashes and five opens leave no zombie under the launcher or a
// shim.
func TestNoZombiesAfterShimCrashesAndOpens(t *testing.T) {
	l := testbin.StartLauncherEnv(t, []string{fakeOpener(t)},
		"--grace", "1s", "--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0 --spawn-children 2")
	l.WaitReady(1, readyWait)
	for n := 2; n <= 4; n++ {
		b := status(t, l).Backends[0]
		if err := syscall.Kill(b.ShimPID, syscall.SIGKILL); err != nil { // our own test's shim
			t.Fatal(err)
		}
		l.WaitReady(n, readyWait) // the supervisor restarted it
	}
	last := time.Now()
	checkNoZombies(t, l, last)
	for range 5 {
		if out, errOut, code := l.CLI("open"); code != 0 {
			t.Fatalf("open: exit %d: %s %s", code, out, errOut)
		}
	}
	last = time.Now()
	time.Sleep(500 * time.Millisecond) // the openers' children have exited
	checkNoZombies(t, l, last)
	if st := status(t, l).Backends[0]; st.Restarts != 3 {
		t.Errorf("restarts: got %d, want 3", st.Restarts)
	}
	stopAndCheck(t, l)
}

// The children the launcher starts itself keep their exit status for their
// owners: a killed shim whose backend ignores SIGTERM stays a zombie
// through the grace period while its instance stops the tree, and only then
// is waited for (the backend does not notice its parent die, like Hermes,
// and ignores SIGTERM); the reaper must leave it alone, or its status is
// lost.
func TestKilledShimStatusSurvivesTheReaper(t *testing.T) {
	l := testbin.StartLauncher(t, "--grace", "3s", "--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0 --ignore-sigterm --parent-poll 1h")
	l.WaitReady(1, readyWait)
	b := status(t, l).Backends[0]
	if err := syscall.Kill(b.ShimPID, syscall.SIGKILL); err != nil { // our own test's shim
		t.Fatal(err)
	}
	l.WaitReady(2, 2*readyWait)
	st := status(t, l).Backends[0]
	if !strings.Contains(st.LastRestart, "killed by signal 9") {
		t.Errorf("last restart: got %q, want the shim's status (killed by signal 9)", st.LastRestart)
	}
	checkNoZombies(t, l, time.Now())
	stopAndCheck(t, l)
}
