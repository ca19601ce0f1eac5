package watchdog

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

// The shim on Windows, black box: hermes-desktop.exe watchdog, started with
// the pipes as the launcher starts it (ShimPipes), running the built-in
// backend with fault children; every process counted in the process table.
//
// Wine delivers no console control events, so the CTRL_BREAK the shim sends
// the backend at teardown cannot be sent there: the shim then kills the
// tree at once rather than wait out a grace period that gains nothing.

// winShim is a shim a test started, as the launcher starts it.
type winShim struct {
	cmd   *exec.Cmd
	pipes *ShimPipes
	done  <-chan struct{}
	tree  *testbin.Tree
	lines <-chan string // the shim's stdout: the backend's
	grace time.Duration
}

// teardownWait bounds a teardown: the grace period, then the kill, which
// takes milliseconds, with room to spare on a loaded machine.
func (s *winShim) teardownWait() time.Duration { return s.grace + 3*time.Second }

// startWinShim starts the shim running exe's built-in backend with args.
// Cleanup closes the lifeline, waits for the tree to be gone (failing the
// test if anything is left) and kills the shim if it still runs.
func startWinShim(t *testing.T, grace time.Duration, args ...string) *winShim {
	t.Helper()
	exe := testbin.Path(t)
	pipes, err := NewShimPipes()
	if err != nil {
		t.Fatal(err)
	}
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{exe, "serve", "--host", "127.0.0.1", "--port", "0"}, args...)
	o := ShimOptions{
		Lifeline: pipes.ShimLifeline, Report: pipes.ShimReport,
		Parent: Parent{PID: self.PID, Start: self.Start}, Grace: grace, Argv: argv,
	}
	cmd := exec.Command(exe, append([]string{Subcommand}, o.Args()...)...)
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	lines := stdoutLines(t, cmd)
	if err := pipes.Attach(cmd); err != nil {
		t.Fatal(err)
	}
	done := startWaited(t, cmd)
	pipes.CloseShimEnds()
	id, err := proc.Lookup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	s := &winShim{cmd: cmd, pipes: pipes, done: done, tree: testbin.FollowTree(t, id), lines: lines, grace: grace}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shim's stderr:\n%s", stderr)
		}
	})
	t.Cleanup(func() { pipes.Lifeline.Close(); pipes.Report.Close() }) // first: the tree goes
	return s
}

// release lets the shim start the backend and returns its report.
func (s *winShim) release(t *testing.T) Report {
	t.Helper()
	if _, err := io.WriteString(s.pipes.Lifeline, FormatStart()); err != nil {
		t.Fatal(err)
	}
	rep, err := within(t, "the report", func() (Report, error) { return ReadReport(s.pipes.Report) })
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	return rep
}

// checkReport checks that the report names the shim's child by its PID
// and start marker, as the process table sees it.
func (s *winShim) checkReport(t *testing.T, rep Report) proc.Identity {
	t.Helper()
	if rep.Error != "" {
		t.Fatalf("report: got error %q, want a backend", rep.Error)
	}
	p, err := proc.Stat(rep.PID)
	if err != nil {
		t.Fatalf("reported backend %d: %v", rep.PID, err)
	}
	if p.PPID != s.cmd.Process.Pid || p.Start != rep.Start {
		t.Errorf("reported backend: got pid %d start %q, want a child of the shim %d; the table says parent %d, start %q",
			rep.PID, rep.Start, s.cmd.Process.Pid, p.PPID, p.Start)
	}
	return p.Identity()
}

// readyMarker ends the backend's READY line before the port, as Hermes and
// the built-in backend print it (HERMES_BACKEND_READY port=N); the built-in
// backend's package imports this one, so its constant is out of reach.
const readyMarker = "_READY port="

// awaitServing reads the backend's READY line and checks its port answers.
func (s *winShim) awaitServing(t *testing.T) int {
	t.Helper()
	for {
		line := nextLine(t, s.lines)
		if _, rest, ok := strings.Cut(line, readyMarker); ok {
			port, err := strconv.Atoi(rest)
			if err != nil {
				t.Fatalf("ready line %q: %v", line, err)
			}
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/status", port))
			if err != nil {
				t.Fatalf("backend on port %d: %v", port, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("backend /api/status: got HTTP %d, want 200", resp.StatusCode)
			}
			return port
		}
	}
}

// exitCode waits for the shim to exit within d and returns its code.
func (s *winShim) exitCode(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("shim still running after %v", d)
		return -1
	}
}

// The launcher's death, as the shim sees it: EOF on the lifeline. The
// shim, its backend and both of the backend's children (one in the
// backend's console group, one in a group of its own) are gone within
// the grace period and the kill. The backend does not watch its parent
// (--no-parent-watch), so only the shim's teardown can end it. The grace
// is long: the teardown must not wait it out (see checkNoGraceWaited).
func TestShimWindowsLifelineEOFEndsTree(t *testing.T) {
	const grace = 20 * time.Second
	s := startWinShim(t, grace, "--spawn-children=1", "--spawn-setsid-children=1", "--no-parent-watch")
	backend := s.checkReport(t, s.release(t))
	s.awaitServing(t)
	ids := s.tree.WaitRunning(4, 10*time.Second)
	t.Logf("tree before: %v (backend %s)", ids, backend)

	start := time.Now()
	s.pipes.Lifeline.Close()
	left := s.tree.WaitGone(s.teardownWait())
	took := time.Since(start)
	if len(left) > 0 {
		t.Fatalf("after the lifeline closed: got %v still running after %v, want none", left, took)
	}
	t.Logf("tree of %d gone %v after the lifeline closed", len(ids), took)
	checkTeardownExit(t, s.exitCode(t, 5*time.Second))
	checkNoGraceWaited(t, took, grace)
}

// killedByShim is the exit code of a backend the shim's teardown killed
// (TerminateProcess with 1, Job.KillMembers); stoppedOnBreak, of one
// that stopped on CTRL_BREAK as the built-in backend does.
const (
	killedByShim   = 1
	stoppedOnBreak = 0
)

// checkTeardownExit checks the shim's exit code after a teardown: the
// backend's, ended by CTRL_BREAK or by the shim's kill. 128+9 would mean
// the shim's kill reached nothing and the shim gave up, leaving its
// kill-on-close job to end the tree when it exits (as it did under Wine
// while Job.KillMembers could not check membership).
func checkTeardownExit(t *testing.T, code int) {
	t.Helper()
	want := []int{stoppedOnBreak, killedByShim}
	if proc.UnderWine() {
		want = []int{killedByShim} // no CTRL_BREAK under Wine
	}
	if !slices.Contains(want, code) {
		t.Errorf("shim exit code: got %d, want one of %v (the backend's, stopped or killed by the shim)", code, want)
	}
}

// checkNoGraceWaited checks that the teardown did not wait out the grace
// period. On Windows the shim asks the backend with CTRL_BREAK on the
// backend's own console, and the built-in backend stops on it at once;
// where no console event can be sent (Wine has none), waiting would only
// leave the backend running, so the shim kills the tree at once.
func checkNoGraceWaited(t *testing.T, took, grace time.Duration) {
	t.Helper()
	if proc.UnderWine() {
		t.Logf("under Wine: no console events; the shim killed the tree at once (%v)", took)
	}
	if took >= grace {
		t.Errorf("teardown took %v, want less than the %v grace: nothing was gained by waiting", took, grace)
	}
}

// A backend that exits on its own takes its children with it: the shim
// kills what is left in its job and exits with the backend's code (should
// that kill miss, the shim's exit closes its kill-on-close job, which ends
// them too). Before it exits, the shim ends its blocked read of the
// lifeline, a synchronous pipe read on Windows that only CancelIoEx
// interrupts: if that failed, the shim would never exit.
func TestShimWindowsBackendExitEndsTree(t *testing.T) {
	s := startWinShim(t, 5*time.Second, "--spawn-children=2", "--crash-after=1s", "--exit-code=7", "--no-parent-watch")
	s.checkReport(t, s.release(t))
	s.awaitServing(t)
	s.tree.WaitRunning(4, 10*time.Second)
	if got, want := s.exitCode(t, 10*time.Second), 7; got != want {
		t.Errorf("shim exit code: got %d, want %d (the backend's)", got, want)
	}
	if left := s.tree.WaitGone(3 * time.Second); len(left) > 0 {
		t.Errorf("after the backend exited: got %v still running, want none", left)
	}
}

// A shim killed outright cannot tear anything down: its kill-on-close job
// does, as Windows closes the job's last handle with the shim.
func TestShimWindowsKilledShimEndsTree(t *testing.T) {
	s := startWinShim(t, 5*time.Second, "--spawn-children=1", "--spawn-setsid-children=1", "--no-parent-watch")
	s.checkReport(t, s.release(t))
	s.awaitServing(t)
	ids := s.tree.WaitRunning(4, 10*time.Second)
	start := time.Now()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if left := s.tree.WaitGone(5 * time.Second); len(left) > 0 {
		t.Fatalf("after the shim was killed: got %v still running, want none", left)
	}
	t.Logf("tree of %d gone %v after the shim was killed", len(ids), time.Since(start))
}

// EOF before the start message: the launcher died before recording the
// shim, which then starts nothing and says so in its exit code.
func TestShimWindowsNoStartWithoutRelease(t *testing.T) {
	s := startWinShim(t, time.Second)
	s.pipes.Lifeline.Close()
	if got, want := s.exitCode(t, 10*time.Second), exitParentGone; got != want {
		t.Errorf("shim exit code: got %d, want %d", got, want)
	}
	if _, err := ReadReport(s.pipes.Report); err == nil {
		t.Error("report: got one, want none (no backend was started)")
	}
	if ids := s.tree.Running(); len(ids) > 0 {
		t.Errorf("processes: got %v, want none", ids)
	}
}
