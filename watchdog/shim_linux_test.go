package watchdog_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"

	"hermes-desktop/internal/waitfor"
)

// shim is a `hermes-desktop watchdog` started by a test, with a lifeline and
// a report pipe like the launcher gives it.
type shim struct {
	cmd      *exec.Cmd
	tag      string
	lifeline *os.File // write end
	report   *os.File // read end
	stdout   *bufio.Reader
	done     chan struct{}
}

func startShim(t *testing.T, grace time.Duration, argv ...string) *shim {
	t.Helper()
	return startShimIn(t, nil, "", grace, argv...)
}

// startShimIn starts the shim inside the test's cgroup parent (nil: where
// the test runs), asking it for the backend cgroup name ("": none).
func startShimIn(t *testing.T, parent *cgroup.Cgroup, name string, grace time.Duration, argv ...string) *shim {
	t.Helper()
	tag := testbin.Tag(t)
	pipes, err := watchdog.NewShimPipes()
	if err != nil {
		t.Fatal(err)
	}
	lifeW, repR := pipes.Lifeline, pipes.Report
	o := watchdog.ShimOptions{Lifeline: pipes.ShimLifeline, Report: pipes.ShimReport, Grace: grace, Cgroup: name, Argv: argv}
	cmd := exec.Command(testbin.Path(t), append([]string{watchdog.Subcommand}, o.Args()...)...)
	cmd.Env = testbin.NewEnv(tag, t.TempDir())
	if err := pipes.Attach(cmd); err != nil {
		t.Fatal(err)
	}
	out, outW, _ := os.Pipe() // not StdoutPipe: Wait must not race our reads
	cmd.Stdout = outW
	if parent != nil {
		err = testbin.StartIn(cmd, parent)
	} else {
		err = cmd.Start()
	}
	pipes.CloseShimEnds()
	if err != nil {
		t.Fatal(err)
	}
	outW.Close()
	t.Cleanup(func() { out.Close() })
	s := &shim{cmd: cmd, tag: tag, lifeline: lifeW, report: repR, stdout: bufio.NewReader(out), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		lifeW.Close()
		repR.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

func (s *shim) release(t *testing.T) watchdog.Report {
	t.Helper()
	if _, err := s.lifeline.WriteString(watchdog.FormatStart()); err != nil {
		t.Fatal(err)
	}
	r, err := watchdog.ReadReport(s.report)
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	return r
}

func (s *shim) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(15 * time.Second):
		t.Fatal("shim did not exit")
		return -1
	}
}

func TestShimExitStatus(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want int
	}{
		{"exit code", []string{"sh", "-c", "exit 7"}, 7},
		{"killed", []string{"sh", "-c", "kill -9 $$"}, 128 + 9},
		{"not found", []string{"/nonexistent/backend"}, 127},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startShim(t, time.Second, tc.argv...)
			if _, err := s.lifeline.WriteString(watchdog.FormatStart()); err != nil {
				t.Fatal(err)
			}
			if got := s.wait(t); got != tc.want {
				t.Errorf("exit: got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestShimWaitsForTheStartBarrier(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	s := startShim(t, time.Second, "sh", "-c", "touch "+marker)
	s.lifeline.Close() // the launcher died before recording the shim
	if got := s.wait(t); got != 3 {
		t.Errorf("exit: got %d, want 3", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the backend ran without the start barrier being released")
	}
}

func TestShimReportsTheBackendAndNamesItselfAsParent(t *testing.T) {
	s := startShim(t, time.Second, testbin.Path(t), "serve", "--host", "127.0.0.1", "--port", "0")
	r := s.release(t)
	shimID, err := proc.Lookup(s.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Check(proc.Identity{PID: r.PID, Start: r.Start}); err != nil {
		t.Fatalf("reported identity %+v: %v", r, err)
	}
	env := map[string]string{}
	for _, k := range []string{hermes.EnvParentPID, hermes.EnvParentMarker, hermes.EnvParentNonce} {
		v, ok, err := proc.Getenv(r.PID, k)
		if err != nil || !ok {
			t.Fatalf("%s missing from the backend's environment: %v", k, err)
		}
		env[k] = v
	}
	if env[hermes.EnvParentPID] != strconv.Itoa(shimID.PID) || env[hermes.EnvParentMarker] != shimID.Start || len(env[hermes.EnvParentNonce]) != 32 {
		t.Errorf("backend's parent contract: got %v, want the shim %+v", env, shimID)
	}
	st, err := proc.Stat(r.PID)
	if err != nil || st.PGID != s.cmd.Process.Pid {
		t.Errorf("backend's process group: got %d (%v), want the shim's %d", st.PGID, err, s.cmd.Process.Pid)
	}
	if _, err := s.stdout.ReadString('\n'); err != nil { // the READY line: its handlers are in place
		t.Fatal(err)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Errorf("after SIGTERM: exit %d, want the backend's 0", code)
	}
}

// treeScript starts two children in the shim's group and two that escape it
// with setsid, like MCP stdio servers, and ignores nothing.
const treeScript = "sleep 60 & sleep 60 & setsid sleep 60 & setsid sleep 60 & wait"

func TestShimTearsDownItsWholeTree(t *testing.T) {
	for _, trigger := range []string{"SIGTERM", "lifeline EOF", "stop message", "backend exit"} {
		t.Run(trigger, func(t *testing.T) {
			script := treeScript
			if trigger == "backend exit" {
				script = "sleep 60 & setsid sleep 60 & sleep 0.5; exit 4"
			}
			s := startShim(t, 2*time.Second, "sh", "-c", script)
			s.release(t)
			testbin.WaitTagged(t, s.tag, 4, 10*time.Second)
			switch trigger {
			case "SIGTERM":
				_ = s.cmd.Process.Signal(syscall.SIGTERM)
			case "lifeline EOF":
				s.lifeline.Close()
			case "stop message":
				if _, err := s.lifeline.WriteString(watchdog.FormatStop()); err != nil {
					t.Fatal(err)
				}
			}
			code := s.wait(t)
			if left := testbin.WaitUntagged(s.tag, 2*time.Second); len(left) > 0 {
				t.Errorf("left after %s: %v", trigger, left)
			}
			if trigger == "backend exit" && code != 4 {
				t.Errorf("exit: got %d, want the backend's 4", code)
			}
		})
	}
}

func TestShimKillsWhatIgnoresSIGTERMAfterTheGrace(t *testing.T) {
	s := startShim(t, 300*time.Millisecond, "sh", "-c", `trap "" TERM; sleep 60 & setsid sleep 60 & wait`)
	s.release(t)
	testbin.WaitTagged(t, s.tag, 4, 10*time.Second)
	start := time.Now()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 128+9 {
		t.Errorf("exit: got %d, want 137 (backend SIGKILLed)", code)
	}
	if elapsed := time.Since(start); elapsed < 300*time.Millisecond {
		t.Errorf("killed after %v, before the 300ms grace", elapsed)
	}
	if left := testbin.WaitUntagged(s.tag, 2*time.Second); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// A process that looks exactly like one of the backend's children but is
// not in the shim's tree is never signalled.
func TestShimNeverSignalsOutsideItsTree(t *testing.T) {
	decoy := exec.Command("sleep", "60")
	decoy.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := decoy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = decoy.Process.Kill(); _ = decoy.Wait() }()
	s := startShim(t, 300*time.Millisecond, "sh", "-c", treeScript)
	s.release(t)
	testbin.WaitTagged(t, s.tag, 4, 10*time.Second)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	s.wait(t)
	if err := syscall.Kill(decoy.Process.Pid, 0); err != nil {
		t.Fatalf("the decoy was killed: %v", err)
	}
	st, _ := proc.Stat(decoy.Process.Pid)
	if st.Zombie {
		t.Fatalf("the decoy was killed (zombie)")
	}
}

func TestShimHelp(t *testing.T) {
	out, err := exec.Command(testbin.Path(t), "watchdog", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-lifeline") || !strings.Contains(string(out), "setsid") {
		t.Errorf("help: %v\n%s", err, out)
	}
}

// escapeScript leaves the tree every way a process can: two children in
// the group, a setsid'd one, and a double-forked, setsid'd grandchild
// with an empty environment that ignores SIGTERM (no tag, no nonce, no
// parent of ours: only its cgroup still holds it).
const escapeScript = `sleep 60 & setsid sleep 60 & (setsid env -i /bin/sh -c 'trap "" TERM; while :; do sleep 1; done' </dev/null >/dev/null 2>&1 &) ; trap "" TERM; wait`

// With --cgroup, the backend is born in a cgroup of its own under the
// shim's, with everything it forks (the escaped grandchild included) and
// without the shim; the teardown ends them all with cgroup.kill after the
// grace period, and the shim removes the empty cgroup before it exits.
func TestShimKeepsTheTreeInACgroup(t *testing.T) {
	parent := testbin.Cgroup(t)
	name := "hermes-backend-00112233445566778899aabbccddeeff"
	s := startShimIn(t, parent, name, 300*time.Millisecond, "sh", "-c", escapeScript)
	r := s.release(t)
	if want := parent.Path() + "/" + name; r.Cgroup != want || r.CgroupError != "" {
		t.Fatalf("report: got cgroup %q (error %q), want %q", r.Cgroup, r.CgroupError, want)
	}
	cg, err := cgroup.Open(r.Cgroup)
	if err != nil {
		t.Fatal(err)
	}
	var members []proc.Identity
	// Until the escaped grandchild's loop runs its first `sleep 1`: only
	// then has its shell set its trap (a SIGTERM before that would end it,
	// and the shim with it, before the grace period: a race of the test's).
	looping := false
	if !waitfor.Try(10*time.Second, func() bool {
		pids, _ := cg.Members()
		members = members[:0]
		for _, pid := range pids {
			if id, err := proc.Lookup(pid); err == nil {
				members = append(members, id)
			}
			if argv, _ := proc.Cmdline(pid); strings.Join(argv, " ") == "sleep 1" {
				looping = true
			}
		}
		return len(members) >= 5 && looping
	}) {
		t.Fatalf("members: got %v, want the backend, 3 children and the escaped grandchild's shell and sleep", members)
	}
	if cg.Holds(s.cmd.Process.Pid) {
		t.Error("the shim is in the backend's cgroup: populated 0 would never come")
	}
	if !cg.Holds(r.PID) {
		t.Errorf("the backend %d is not in its cgroup", r.PID)
	}
	start := time.Now()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	s.wait(t)
	if elapsed := time.Since(start); elapsed < 300*time.Millisecond {
		t.Errorf("the shim exited after %v, before the grace period: the escaped grandchild ignores SIGTERM", elapsed)
	}
	for _, id := range members {
		if running, _ := proc.Running(id); running {
			t.Errorf("member %v survived the teardown", id)
		}
	}
	if _, err := cgroup.Open(r.Cgroup); err == nil {
		t.Errorf("cgroup %s still there after the shim exited", r.Cgroup)
	}
}

// Asked for a cgroup it cannot make (its parent is not writable here: it
// names a file), the shim still starts the backend and says why it has no
// cgroup.
func TestShimWithoutItsCgroupStillRuns(t *testing.T) {
	parent := testbin.Cgroup(t)
	s := startShimIn(t, parent, "cgroup.procs", time.Second, "sleep", "60") // "cgroup.procs" exists as a file
	r := s.release(t)
	if r.PID == 0 || r.Cgroup != "" || r.CgroupError == "" {
		t.Errorf("report: got %+v, want a backend, no cgroup and why", r)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	s.wait(t)
}

// At rest the shim wakes nobody: no getppid() poll where a pidfd watches
// the launcher, no timer. Context switches of all its threads are counted
// over two seconds of an idle backend.
func TestShimIdleHasNoWakeups(t *testing.T) {
	s := startShim(t, time.Second, "sleep", "60")
	s.release(t)
	time.Sleep(300 * time.Millisecond) // start-up settles
	before := contextSwitches(t, s.cmd.Process.Pid)
	time.Sleep(2 * time.Second)
	if got := contextSwitches(t, s.cmd.Process.Pid) - before; got > 1 {
		t.Errorf("shim idle for 2s: %d context switches, want at most 1 (the old 1 Hz poll made 2 or more)", got)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	s.wait(t)
}

// contextSwitches sums voluntary and involuntary context switches over
// every thread of pid.
func contextSwitches(t *testing.T, pid int) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/status")
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				c, _ := strconv.Atoi(strings.TrimSpace(v))
				n += c
			}
		}
	}
	return n
}
