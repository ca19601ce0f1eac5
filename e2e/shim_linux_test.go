package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// treeFlags gives the built-in backend the tree the issue names: three plain
// children and three that escape the process group with setsid.
const treeFlags = " --spawn-children 3 --spawn-setsid-children 3"

// waitSampledTree waits until the launcher's sampler reports n processes in
// the first backend's tree.
func waitSampledTree(t *testing.T, l *testbin.Launcher, n int) {
	t.Helper()
	waitfor.Until(t, 10*time.Second, fmt.Sprintf("the sampler to see %d processes in the tree", n), func() bool {
		b := status(t, l).Backends[0]
		return b.Tree != nil && b.Tree.Count == n
	})
}

// tagWait bounds the wait for a launcher's tree to appear.
const tagWait = 20 * time.Second

func TestLauncherSIGKILLLeavesNothing(t *testing.T) {
	cases := []struct {
		name    string
		backend string
		before  func(t *testing.T, l *testbin.Launcher)
	}{
		{"while running", "{bin} serve --host 127.0.0.1 --port 0" + treeFlags, func(t *testing.T, l *testbin.Launcher) {
			l.WaitReady(1, readyWait)
			testbin.WaitTagged(t, l.Tag, 9, tagWait) // launcher, shim, backend, 6 children
		}},
		{"during start-up", "{bin} serve --host 127.0.0.1 --port 0 --start-delay 30s", func(t *testing.T, l *testbin.Launcher) {
			testbin.WaitTagged(t, l.Tag, 3, tagWait) // launcher, shim, backend (not ready)
		}},
		{"backend ignores SIGTERM", "{bin} serve --host 127.0.0.1 --port 0 --ignore-sigterm" + treeFlags, func(t *testing.T, l *testbin.Launcher) {
			l.WaitReady(1, readyWait)
			testbin.WaitTagged(t, l.Tag, 9, tagWait)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := testbin.StartLauncher(t, "--grace", "500ms", "--backend-cmd", tc.backend)
			tc.before(t, l)
			if err := l.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if left := testbin.WaitUntagged(l.Tag, 10*time.Second); len(left) > 0 {
				t.Errorf("alive after the launcher was SIGKILLed: %v", left)
			}
		})
	}
}

func TestShimSIGKILLRestartsBackendAndLeavesNothing(t *testing.T) {
	l := testbin.StartLauncher(t, "--grace", "1s", "--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0"+treeFlags)
	first := l.WaitReady(1, readyWait)
	old := testbin.WaitTagged(t, l.Tag, 9, tagWait)
	b := status(t, l).Backends[0]
	if b.ShimPID == 0 || b.PID != first.PID {
		t.Fatalf("status: got shim %d backend %d, want a shim and backend %d", b.ShimPID, b.PID, first.PID)
	}
	if err := syscall.Kill(b.ShimPID, syscall.SIGKILL); err != nil { // our own test's shim
		t.Fatal(err)
	}
	second := l.WaitReady(2, readyWait)
	if second.PID == first.PID {
		t.Fatalf("backend not restarted: pid %d", second.PID)
	}
	var alive []int
	if !waitfor.Try(10*time.Second, func() bool {
		alive = alive[:0]
		for _, pid := range old {
			if pid != l.Cmd.Process.Pid && slices.Contains(testbin.Tagged(l.Tag), pid) {
				alive = append(alive, pid)
			}
		}
		return len(alive) == 0
	}) {
		t.Fatalf("processes of the first tree still alive: %v", alive)
	}
	if st := status(t, l).Backends[0]; st.Restarts != 1 {
		t.Errorf("restarts: got %d, want 1", st.Restarts)
	}
	stopAndCheck(t, l)
}

// fdTargets maps a process's fds to what they point at.
func fdTargets(t *testing.T, pid int) map[string]string {
	t.Helper()
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			out[e.Name()] = target
		}
	}
	return out
}

// A SIGKILLed launcher's shim learns of it from the exit word, as the
// launcher's exit begins, not from the lifeline's EOF after the kernel has
// freed the launcher's memory; the tree goes all the same.
func TestLauncherSIGKILLSeenByTheExitWord(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace")
	l := testbin.StartLauncherEnv(t, []string{watchdog.EnvTrace + "=" + trace}, "--grace", "500ms",
		"--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0"+treeFlags)
	l.WaitReady(1, readyWait)
	testbin.WaitTagged(t, l.Tag, 9, tagWait)
	if err := l.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if left := testbin.WaitUntagged(l.Tag, 10*time.Second); len(left) > 0 {
		t.Errorf("alive after the launcher was SIGKILLed: %v", left)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), " parent-gone "+string(watchdog.ReasonOwnerExiting)) {
		t.Errorf("the shim did not see the death by its exit word; its trace:\n%s", data)
	}
}

func TestBackendInheritsNoLauncherFDs(t *testing.T) {
	// A desktop-owned backend (serve): it gets every mark of the contract.
	l := testbin.StartLauncher(t, "--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0")
	r := l.WaitReady(1, readyWait)
	b := status(t, l).Backends[0]
	launcherFDs := fdTargets(t, l.Cmd.Process.Pid)
	shimFDs := fdTargets(t, b.ShimPID)
	backendFDs := fdTargets(t, r.PID)
	shared := map[string]bool{}
	// Pipes and sockets name one kernel object each; files are compared only
	// under the state dir, since every Go program opens the same cgroup
	// files for itself.
	for _, target := range launcherFDs {
		if strings.HasPrefix(target, "pipe:") || strings.HasPrefix(target, "socket:") || strings.HasPrefix(target, l.StateDir) {
			shared[target] = true
		}
	}
	for fd, target := range backendFDs {
		if fd == "0" || fd == "1" || fd == "2" {
			continue // its stdio: /dev/null and the log pipes made for it
		}
		if shared[target] {
			t.Errorf("backend fd %s -> %s is also open in the launcher", fd, target)
		}
		if target == shimFDs["3"] {
			t.Errorf("backend fd %s is the lifeline (%s)", fd, target)
		}
	}
	if !strings.HasPrefix(shimFDs["3"], "pipe:") {
		t.Errorf("shim fd 3: got %q, want the lifeline pipe", shimFDs["3"])
	}
	// The launcher's exit word: mapped by the shim, whose fd for it is
	// closed before the backend starts; the backend has neither.
	for who, fds := range map[string]map[string]string{"shim": shimFDs, "backend": backendFDs} {
		for fd, target := range fds {
			if strings.HasPrefix(target, "/memfd:hermes-desktop-owner") {
				t.Errorf("%s fd %s is the launcher's exit word", who, fd)
			}
		}
	}
	if maps, err := os.ReadFile("/proc/" + strconv.Itoa(b.ShimPID) + "/maps"); err != nil || !strings.Contains(string(maps), "memfd:hermes-desktop-owner") {
		t.Errorf("the shim does not map the launcher's exit word (%v)", err)
	}
	if maps, err := os.ReadFile("/proc/" + strconv.Itoa(r.PID) + "/maps"); err != nil || strings.Contains(string(maps), "memfd:hermes-desktop-owner") {
		t.Errorf("the backend maps the launcher's exit word (%v)", err)
	}
	// The contract: the backend's parent is the shim, by PID and marker.
	shimID, err := proc.Lookup(b.ShimPID)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := proc.Getenv(r.PID, "HERMES_PARENT_PID"); v != strconv.Itoa(shimID.PID) {
		t.Errorf("HERMES_PARENT_PID: got %q, want the shim %d", v, shimID.PID)
	}
	if v, _, _ := proc.Getenv(r.PID, "HERMES_PARENT_START_MARKER"); v != shimID.Start {
		t.Errorf("HERMES_PARENT_START_MARKER: got %q, want %q", v, shimID.Start)
	}
	for _, k := range []string{"HERMES_DESKTOP", "HERMES_PARENT_NONCE", "HERMES_DASHBOARD_SESSION_TOKEN", "HERMES_HOME", "HERMES_DESKTOP_READY_FILE"} {
		if _, ok, _ := proc.Getenv(r.PID, k); !ok {
			t.Errorf("%s missing from the backend's environment", k)
		}
	}
	stopAndCheck(t, l)
}

// MCP stdio servers are started with a scrubbed environment: no nonce ties
// them to the backend. When their shim is killed, the launcher still knows
// them from its samples of the tree and stops them.
func TestShimSIGKILLWithScrubbedChildren(t *testing.T) {
	l := testbin.StartLauncher(t, "--grace", "1s", "--sample-interval", "100ms", "--backend-cmd",
		"{bin} serve --host 127.0.0.1 --port 0 --spawn-setsid-children 2 --scrub-child-env --keep-child-env "+testbin.TagEnv)
	first := l.WaitReady(1, readyWait)
	old := testbin.WaitTagged(t, l.Tag, 5, tagWait) // launcher, shim, backend, 2 children
	waitSampledTree(t, l, 3)                        // backend and its 2 children
	for _, pid := range old {
		if v, ok, _ := proc.Getenv(pid, "HERMES_PARENT_NONCE"); ok && v != "" {
			if argv, _ := proc.Cmdline(pid); len(argv) > 1 && argv[1] == "serve-child" {
				t.Fatalf("child %d carries the nonce: the test would not test anything", pid)
			}
		}
	}
	must(t, syscall.Kill(status(t, l).Backends[0].ShimPID, syscall.SIGKILL)) // our test's shim
	l.WaitReady(2, readyWait)
	alive := 0
	if !waitfor.Try(10*time.Second, func() bool {
		alive = 0
		for _, pid := range old {
			if pid != l.Cmd.Process.Pid && pid != first.PID && slices.Contains(testbin.Tagged(l.Tag), pid) {
				alive++
			}
		}
		return alive == 0
	}) {
		t.Fatalf("%d scrubbed children of the killed shim's tree survived", alive)
	}
	stopAndCheck(t, l)
}
