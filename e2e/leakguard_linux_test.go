package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

const leakyChildren = "{bin} serve --host 127.0.0.1 --port 0 --leak-children-every 200ms"

// duplicates returns the largest duplicate group's size in the latest
// sample and whether a warning of kind is shown.
func treeState(t *testing.T, l *testbin.Launcher, kind string) (dups int, warned bool, sampled bool) {
	b := status(t, l).Backends[0]
	if b.Tree == nil {
		return 0, false, false
	}
	for _, d := range b.Tree.Duplicates {
		dups = max(dups, d.Count)
	}
	for _, w := range b.Tree.Warnings {
		if w.Kind == kind {
			warned = true
		}
	}
	return dups, warned, true
}

func TestLeakGuardSeesDuplicatesPileUp(t *testing.T) {
	l := testbin.StartLauncher(t, "--sample-interval", "200ms", "--backend-cmd", leakyChildren)
	l.WaitReady(1, readyWait)
	var seen []int
	if !waitfor.Try(20*time.Second, func() bool {
		dups, warned, ok := treeState(t, l, leakguard.WarnDuplicates)
		if ok && (len(seen) == 0 || seen[len(seen)-1] != dups) {
			seen = append(seen, dups)
		}
		return warned && dups > 4
	}) {
		t.Fatalf("no duplicate warning; counts seen: %v", seen)
	}
	if len(seen) < 3 {
		t.Errorf("the duplicate count did not grow sample after sample: %v", seen)
	}
	if !strings.Contains(l.Stderr.String(), "children are piling up") {
		t.Errorf("the warning was not logged")
	}
	if n := strings.Count(l.Stderr.String(), "children are piling up"); n != 1 {
		t.Errorf("the warning was logged %d times in one episode, want once", n)
	}
	stopAndCheck(t, l)
}

func TestLeakGuardKeepsDuplicatesBounded(t *testing.T) {
	// A decoy with the very command line of the leaked children, outside
	// the backend's tree: the policy must never touch it.
	decoy := exec.Command(testbin.Path(t), "serve-child", "--kind", "leaked")
	must(t, decoy.Start())
	defer func() { _ = decoy.Process.Kill(); _ = decoy.Wait() }()
	decoyID, err := proc.Lookup(decoy.Process.Pid)
	must(t, err)

	l := testbin.StartLauncher(t, "--sample-interval", "100ms", "--max-duplicate-children", "2", "--backend-cmd", leakyChildren)
	r := l.WaitReady(1, readyWait)
	deadline := time.Now().Add(4 * time.Second)
	samples := 0
	for time.Now().Before(deadline) {
		dups, _, ok := treeState(t, l, leakguard.WarnDuplicates)
		if ok {
			samples++
			if dups > 2 {
				t.Fatalf("duplicates: got %d in a sample, want at most 2", dups)
			}
		}
		resp, err := http.Get(r.URL + "/api/status") // public: the test holds no token
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("status failed while the policy ran: %v %v", resp, err)
		}
		resp.Body.Close()
		time.Sleep(100 * time.Millisecond)
	}
	if samples < 10 {
		t.Fatalf("only %d samples in 4s", samples)
	}
	if b := status(t, l).Backends[0]; b.PID != r.PID || b.Restarts != 0 {
		t.Errorf("the backend itself was touched: %+v", b)
	}
	if running, _ := proc.Running(decoyID); !running {
		t.Fatalf("the decoy outside the tree was signalled")
	}
	stopAndCheck(t, l)
}

func TestLeakGuardFDPressure(t *testing.T) {
	// 256 descriptors, no floor: the leak reaches the limit in seconds.
	under := []string{"prlimit", "--nofile=256:4096"}
	leaky := "{bin} serve --host 127.0.0.1 --port 0 --leak-fds-every 20ms"
	t.Run("warning", func(t *testing.T) {
		l := testbin.StartLauncherUnder(t, under, "--nofile-soft-limit", "0", "--sample-interval", "100ms", "--backend-cmd", leaky)
		l.WaitReady(1, readyWait)
		waitfor.Until(t, 20*time.Second, "an fd-pressure warning", func() bool {
			_, warned, _ := treeState(t, l, leakguard.WarnFDPressure)
			return warned
		})
		stopAndCheck(t, l)
	})
	t.Run("restart", func(t *testing.T) {
		l := testbin.StartLauncherUnder(t, under, "--nofile-soft-limit", "0", "--sample-interval", "100ms",
			"--restart-on-fd-pressure", "--backend-cmd", leaky)
		first := l.WaitReady(1, readyWait)
		second := l.WaitReady(2, readyWait)
		if second.PID == first.PID {
			t.Fatal("not restarted")
		}
		b := status(t, l).Backends[0]
		if b.Restarts < 1 || !strings.Contains(b.LastRestart, "file descriptors") {
			t.Errorf("status after the restart: restarts %d, last restart %q", b.Restarts, b.LastRestart)
		}
		if strings.Contains(l.Stderr.String()+l.Stdout.String(), "too many open files") {
			t.Errorf("the backend hit EMFILE before it was restarted")
		}
		stopAndCheck(t, l)
	})
}

func nofileSoftOf(t *testing.T, pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	t.Fatal("no open-files line")
	return 0
}

func TestNofileFloor(t *testing.T) {
	var lim syscall.Rlimit
	must(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)) // Go raised our soft limit to the hard one
	hard := min(lim.Max, 65536)
	if hard < 8192 {
		t.Skipf("hard open-file limit %d is below the cases' 8192", hard)
	}
	cases := []struct {
		limits string
		floor  string
		want   int
	}{
		{"256:4096", "4096", 4096},                   // raised to the floor
		{fmt.Sprintf("8192:%d", hard), "4096", 8192}, // a higher inherited limit is kept
		{"256:1024", "4096", 1024},                   // clamped to the hard limit
		{"256:4096", "0", 256},                       // floor off
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s floor %s", tc.limits, tc.floor), func(t *testing.T) {
			l := testbin.StartLauncherUnder(t, []string{"prlimit", "--nofile=" + tc.limits}, "--nofile-soft-limit", tc.floor)
			r := l.WaitReady(1, readyWait)
			if got := nofileSoftOf(t, r.PID); got != tc.want {
				t.Errorf("backend soft nofile: got %d, want %d", got, tc.want)
			}
			stopAndCheck(t, l)
		})
	}
}
