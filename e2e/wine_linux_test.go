package e2e

// The Windows app end to end, under Wine: the Windows build of
// hermes-desktop, run headless in the Windows test lane's prefix
// (scripts/wine/test-windows.sh, `make test-windows`), driven from Linux so
// a test can also SIGKILL the launcher's Wine process and count what is
// left with /proc. Every Windows process of the prefix is a Linux process
// whose command line is its Windows one, so a test finds its own processes
// by the copy of the exe it made in a directory of its own (and by its
// tag), and never touches another.
//
// Outside the lane (no HERMES_DESKTOP_WINE_EXE) these tests skip.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reapreport"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// The lane's contract with these tests.
const (
	wineExeEnv    = "HERMES_DESKTOP_WINE_EXE" // the Linux path of the Windows build
	wineReadyWait = 60 * time.Second          // Wine starts processes slower than Linux
)

// winApp is one copy of the Windows build in a directory of the test's
// own, with its own state dir and HERMES_HOME.
type winApp struct {
	t     *testing.T
	dir   string // Linux path of the test's directory
	exe   string // Linux path of the exe copy
	state string // Linux path of the state dir
	home  string // Linux path of HERMES_HOME
	tag   string
	env   []string // more environment for every process started (KEY=VALUE)
}

// newWinApp skips outside the Windows lane.
func newWinApp(t *testing.T) *winApp {
	t.Helper()
	src := os.Getenv(wineExeEnv)
	if src == "" || os.Getenv("WINEPREFIX") == "" {
		t.Skipf("the Windows build under Wine: run by make test-windows (%s and WINEPREFIX unset)", wineExeEnv)
	}
	dir := t.TempDir()
	a := &winApp{t: t, dir: dir, state: filepath.Join(dir, "state"), home: filepath.Join(dir, "home"), tag: testbin.NewTag()}
	a.exe = a.copyExe("hermes-desktop.exe")
	if err := os.MkdirAll(a.home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.checkNothingLeft)
	return a
}

// copyExe copies the Windows build into the test's directory under name.
func (a *winApp) copyExe(name string) string {
	a.t.Helper()
	data, err := os.ReadFile(os.Getenv(wineExeEnv))
	if err != nil {
		a.t.Fatal(err)
	}
	path := filepath.Join(a.dir, "app", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		a.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		a.t.Fatal(err)
	}
	return path
}

// command runs exe (a copy of the build) with args under Wine.
func (a *winApp) command(exe string, args ...string) *exec.Cmd {
	cmd := exec.Command(testbin.WineLoader, append([]string{testbin.WinPath(exe)}, args...)...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "HERMES_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, testbin.Env(a.tag), "HERMES_HOME="+testbin.WinPath(a.home),
		"HERMES_DESKTOP_STATE_DIR="+testbin.WinPath(a.state))
	cmd.Env = append(cmd.Env, a.env...)
	return cmd
}

// cliTimeout bounds one CLI call: a hung call fails its test, not the run.
const cliTimeout = 90 * time.Second

// cli runs one CLI verb of the app's exe and returns its output and exit code.
func (a *winApp) cli(args ...string) (stdout, stderr string, code int) {
	a.t.Helper()
	cmd := a.command(a.exe, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		a.t.Fatalf("%v: %v", args, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }() // the only waiter
	select {
	case <-done:
	case <-time.After(cliTimeout):
		_ = cmd.Process.Kill() // ours, and not yet reaped
		<-done
		a.t.Fatalf("%v: no answer in %v; stderr: %s", args, cliTimeout, errOut.String())
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// winLauncher is a `run --headless` of the app, started by the test.
type winLauncher struct {
	cmd    *exec.Cmd
	output outputFile
	exited chan struct{}
}

// outputFile is where a launcher writes its output: a file, not a pipe,
// since a handoff's successor inherits it and lives on (cmd.Wait would wait
// for a pipe's last writer).
type outputFile string

func (f outputFile) String() string {
	data, _ := os.ReadFile(string(f))
	return string(data)
}

// startLauncher starts `exe run --headless` plus args. Its boot reap spares
// unrecorded orphans younger than an hour (args may say otherwise): the
// prefix is shared with other tests, and nothing of theirs is this test's
// to signal. The test's cleanup SIGKILLs it if it is still there (it is our
// child) and reaps it.
func (a *winApp) startLauncher(exe string, args ...string) *winLauncher {
	a.t.Helper()
	cmd := a.command(exe, append([]string{"run", "--headless", "--min-orphan-age", "1h"}, args...)...)
	out, err := os.CreateTemp(a.dir, "launcher-*.log")
	if err != nil {
		a.t.Fatal(err)
	}
	defer out.Close() // the child has its copy
	l := &winLauncher{cmd: cmd, output: outputFile(out.Name()), exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		a.t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(l.exited) }() // the only waiter
	a.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-l.exited
	})
	return l
}

// waitExit waits for the launcher's exit and returns its code.
func (l *winLauncher) waitExit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-l.exited:
		return l.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("launcher still running after %v; output:\n%s", d, l.output)
		return -1
	}
}

// status is `status --json`; ok is false while no instance answers.
func (a *winApp) status() (model.Status, bool) {
	a.t.Helper()
	out, _, code := a.cli("status", "--json")
	if code != 0 {
		return model.Status{}, false
	}
	var st model.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		a.t.Fatalf("status --json: %v: %q", err, out)
	}
	return st, true
}

// waitReady waits until the instance answers with every backend ready and
// returns that status; it fails the test early if l (when not nil) exits.
func (a *winApp) waitReady(l *winLauncher, notPID int) model.Status {
	a.t.Helper()
	var st model.Status
	if !waitfor.Try(wineReadyWait, func() bool {
		var ok bool
		if st, ok = a.status(); ok && len(st.Backends) > 0 && allReady(st, notPID) {
			return true
		}
		if l != nil {
			select {
			case <-l.exited:
				a.t.Fatalf("launcher exited (%v); output:\n%s", l.cmd.ProcessState, l.output)
			default:
			}
		}
		return false
	}) {
		a.t.Fatalf("not ready after %v: %+v", wineReadyWait, st.Backends)
	}
	return st
}

func allReady(st model.Status, notPID int) bool {
	for _, b := range st.Backends {
		if b.State != model.StateReady || b.PID == notPID {
			return false
		}
	}
	return true
}

// processes lists the live Linux PIDs of this test's Windows processes:
// those carrying its tag whose command line runs an exe from its directory.
func (a *winApp) processes() []int {
	var out []int
	needle := strings.ToLower(testbin.WinPath(a.dir))
	for _, pid := range testbin.Tagged(a.tag) {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && strings.Contains(strings.ToLower(string(cmdline)), needle) {
			out = append(out, pid)
		}
	}
	return out
}

// waitGone waits up to d for every process of the test to be gone and
// returns how long that took, or those left.
func (a *winApp) waitGone(d time.Duration) (time.Duration, []int) {
	start := time.Now()
	var left []int
	if !waitfor.Try(d, func() bool { left = a.processes(); return len(left) == 0 }) {
		return 0, left
	}
	return time.Since(start), nil
}

// checkNothingLeft fails the test for every process of it still alive,
// and kills those (ours: tagged and running the test's own exe copy).
func (a *winApp) checkNothingLeft() {
	_, left := a.waitGone(5 * time.Second)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(left) > 0 && !a.t.Failed() {
		a.t.Errorf("processes left behind (killed now): %v", describe(left))
	}
}

func describe(pids []int) []string {
	var out []string
	for _, pid := range pids {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '})))
	}
	return out
}

func httpGet(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// The default configuration on Windows: the built-in backend behind the
// shim in a job, ready, reachable, listed by `status --json` over the
// control pipe; `stop` ends it all.
func TestWineHeadlessDefault(t *testing.T) {
	a := newWinApp(t)
	l := a.startLauncher(a.exe)
	st := a.waitReady(l, 0)
	b := st.Backends[0]
	if b.ShimPID == 0 || !st.Instance.Shim {
		t.Errorf("backend %s: shim pid %d, instance shim %v: want it behind the shim", b.Name, b.ShimPID, st.Instance.Shim)
	}
	if got := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/api/status", b.Port)); got != http.StatusOK {
		t.Errorf("GET /api/status: %d, want 200", got)
	}
	if n := len(a.processes()); n != 3 {
		t.Errorf("processes: got %d %v, want 3 (launcher, shim, backend)", n, describe(a.processes()))
	}
	if out, errOut, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d: %s%s", code, out, errOut)
	}
	if code := l.waitExit(t, 30*time.Second); code != 0 {
		t.Errorf("launcher exit code %d, want 0; output:\n%s", code, l.output)
	}
	if _, left := a.waitGone(5 * time.Second); len(left) > 0 {
		t.Errorf("left after stop: %v", describe(left))
	}
}

// However the launcher dies, the job takes the whole backend tree with it,
// children that left the backend's console group included.
func TestWineLauncherKilledTreeGone(t *testing.T) {
	for _, how := range []string{"SIGKILL of the Wine process", "TerminateProcess"} {
		t.Run(how, func(t *testing.T) {
			a := newWinApp(t)
			l := a.startLauncher(a.exe, "--backend-cmd",
				testbin.WinPath(a.exe)+" serve --host 127.0.0.1 --port 0 --spawn-setsid-children 2")
			st := a.waitReady(l, 0)
			// launcher, shim, backend, two children
			if n := waitCount(a, 5, 20*time.Second); n < 5 {
				t.Fatalf("processes before the kill: got %d %v, want 5", n, describe(a.processes()))
			}
			killed := time.Now()
			if how == "TerminateProcess" {
				tk := exec.Command(testbin.WineLoader, "taskkill", "/F", "/PID", strconv.Itoa(st.Instance.PID))
				tk.Env = a.command(a.exe).Env
				if out, err := tk.CombinedOutput(); err != nil {
					t.Fatalf("taskkill /F /PID %d: %v: %s", st.Instance.PID, err, out)
				}
			} else {
				_ = l.cmd.Process.Signal(syscall.SIGKILL)
			}
			took, left := a.waitGone(10 * time.Second)
			if len(left) > 0 {
				t.Fatalf("left %v after the launcher was killed: %v", time.Since(killed), describe(left))
			}
			t.Logf("tree gone %v after the launcher was killed (%s)", took, how)
		})
	}
}

// waitCount waits until the test has at least n processes and returns how
// many it has.
func waitCount(a *winApp, n int, d time.Duration) int {
	got := 0
	waitfor.Try(d, func() bool { got = len(a.processes()); return got >= n })
	return got
}

// `restart` from the CLI replaces the backend: a new PID, ready again, and
// the old tree gone.
func TestWineRestartFromCLI(t *testing.T) {
	a := newWinApp(t)
	l := a.startLauncher(a.exe)
	before := a.waitReady(l, 0).Backends[0]
	if out, errOut, code := a.cli("restart"); code != 0 {
		t.Fatalf("restart: exit %d: %s%s", code, out, errOut)
	}
	after := a.waitReady(l, before.PID).Backends[0]
	if after.PID == before.PID || after.ShimPID == before.ShimPID {
		t.Errorf("after restart: pid %d shim %d, before %d %d: want new ones", after.PID, after.ShimPID, before.PID, before.ShimPID)
	}
	if n := waitCount(a, 4, time.Second); n != 3 {
		t.Errorf("processes after restart: got %d %v, want 3", n, describe(a.processes()))
	}
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	l.waitExit(t, 30*time.Second)
}

// A restart-mode handoff to another exe: the new one takes over with fresh
// backends, the old instance and its tree are gone.
func TestWineHandoffRestartToNewExe(t *testing.T) {
	a := newWinApp(t)
	l := a.startLauncher(a.exe)
	before := a.waitReady(l, 0)
	next := a.copyExe("hermes-desktop-next.exe")
	if out, errOut, code := a.cli("handoff", "--to", testbin.WinPath(next), "--mode", "restart"); code != 0 {
		t.Fatalf("handoff: exit %d: %s%s", code, out, errOut)
	}
	if code := l.waitExit(t, 30*time.Second); code != 0 {
		t.Errorf("old launcher exit code %d, want 0; output:\n%s", code, l.output)
	}
	after := a.waitReady(nil, before.Backends[0].PID) // the new instance, not l
	if after.Instance.PID == before.Instance.PID {
		t.Errorf("instance pid %d after the handoff: want a new instance", after.Instance.PID)
	}
	var runsNext bool
	for _, pid := range a.processes() {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		line := strings.ToLower(string(cmdline))
		if strings.Contains(line, "hermes-desktop.exe") {
			t.Errorf("a process of the old exe is left: %v", describe([]int{pid}))
		}
		runsNext = runsNext || strings.Contains(line, "hermes-desktop-next.exe")
	}
	if !runsNext {
		t.Errorf("nothing runs the new exe: %v", describe(a.processes()))
	}
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop (new instance): exit %d", code)
	}
}

// The reap on Windows, with the decoys that exist there. Spared whatever
// their age: a fixed port, a non-loopback host, a serve whose parent is
// alive. An unrecorded loopback `--port 0` serve whose parent is gone (an
// orphan: started from Linux, it has no Windows parent) is spared while
// younger than the minimum age and reaped after it, through the identity
// check and TerminateProcess; the spared ones live on, and a launcher's
// boot reap spares them too.
func TestWineReapDecoys(t *testing.T) {
	a := newWinApp(t)
	exe := testbin.WinPath(a.exe)
	start := func(args ...string) *exec.Cmd {
		cmd := a.command(a.exe, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	fixed := strconv.Itoa(freePort(t))
	start("serve", "--host", "127.0.0.1", "--port", fixed)
	start("serve", "--host", "0.0.0.0", "--port", "0")
	orphan := start("serve", "--host", "127.0.0.1", "--port", "0")
	// A serve with a live Windows parent: cmd.exe running a batch file waits
	// for it (a batch file, so that cmd's own command line is no serve).
	bat := filepath.Join(a.dir, "decoy.bat")
	if err := os.WriteFile(bat, []byte("@"+exe+" serve --host 127.0.0.1 --port 0 --public-health\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parented := exec.Command(testbin.WineLoader, "cmd", "/c", testbin.WinPath(bat))
	parented.Env = a.command(a.exe).Env
	if err := parented.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = parented.Process.Kill()
		_ = parented.Wait()
		// cmd.exe's serve does not die with it: every process of this
		// test is one of its decoys, started above.
		for _, pid := range a.processes() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// four serves, and cmd.exe
	if n := waitCount(a, 5, 20*time.Second); n < 5 {
		t.Fatalf("decoys running: got %d %v, want 5", n, describe(a.processes()))
	}

	young := a.reap(t, "--dry-run")
	if got := young.count(reapreport.ActionSpared); got != 4 {
		t.Errorf("dry run: spared %d, want the 4 decoys:\n%s", got, young)
	}
	time.Sleep(2 * time.Second) // the orphan is now older than --min-age
	// Only this test's decoys: others' processes share the prefix.
	var only []string
	for _, d := range young {
		only = append(only, strconv.Itoa(d.PID))
	}
	real := a.reap(t, "--min-age", "1s", "--grace", "2s", "--only", strings.Join(only, ","))
	if got := real.count(reapreport.ActionSpared); got != 3 {
		t.Errorf("reap: spared %d, want 3 (fixed port, non-loopback, live parent):\n%s", got, real)
	}
	if got := real.count(reapreport.ActionReaped); got != 1 {
		t.Errorf("reap: reaped %d, want the orphan:\n%s", got, real)
	}
	done := make(chan struct{})
	go func() { _ = orphan.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Errorf("the reaped orphan is still running")
	}
	if n := len(a.processes()); n != 4 {
		t.Errorf("after the reap: %d processes %v, want the 3 spared decoys and cmd.exe", n, describe(a.processes()))
	}

	// The launcher's boot reap, before its first spawn, spares them too.
	l := a.startLauncher(a.exe, "--min-orphan-age", "1s")
	st := a.waitReady(l, 0)
	if st.BootReap == nil {
		t.Fatalf("status has no boot reap")
	}
	boot := a.mine(st.BootReap)
	if got := boot.count(reapreport.ActionSpared); got != 3 || len(boot) != 3 {
		t.Errorf("boot reap: spared %d of %d decisions, want the 3 decoys spared:\n%s", got, len(boot), boot)
	}
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	l.waitExit(t, 30*time.Second)
	if n := len(a.processes()); n != 4 {
		t.Errorf("after the launcher's run: %d processes %v, want the 3 decoys and cmd.exe", n, describe(a.processes()))
	}
}

// reapReport is the part of a reap report that concerns one test.
type reapReport []reapreport.Decision

func (r reapReport) count(action reapreport.Action) int {
	n := 0
	for _, d := range r {
		if d.Action == action {
			n++
		}
	}
	return n
}

func (r reapReport) String() string {
	var b strings.Builder
	for _, d := range r {
		fmt.Fprintf(&b, "  pid %d %s: %s (%s) %s\n", d.PID, d.Action, d.Reason, d.Detail, strings.Join(d.Cmdline, " "))
	}
	return b.String()
}

// reap runs `reap --json` with args and returns its decisions about this
// test's processes.
func (a *winApp) reap(t *testing.T, args ...string) reapReport {
	t.Helper()
	out, errOut, code := a.cli(append([]string{"reap", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("reap %v: exit %d: %s", args, code, errOut)
	}
	var r reapreport.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("reap --json: %v: %q", err, out)
	}
	return a.mine(&r)
}

// mine is the part of r about this test's processes.
func (a *winApp) mine(r *reapreport.Report) reapReport {
	var mine reapReport
	needle := strings.ToLower(testbin.WinPath(a.dir))
	for _, d := range r.Decisions {
		if strings.Contains(strings.ToLower(strings.Join(d.Cmdline, " ")), needle) {
			mine = append(mine, d)
		}
	}
	return mine
}
