package e2e

// The Windows app's adopt handoff under Wine: the successor is handed the
// launcher's job, each tree's job, the lifelines and the output pipes, so
// the backend keeps its PID and its port answers throughout; a successor
// that fails before taking over leaves the old instance in charge; and once
// the successor holds the job alone, its death still takes the whole tree.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/internal/testbin"
)

// linuxPIDsRunning are the Linux PIDs of the test's processes whose
// command line has every word.
func (a *winApp) linuxPIDsRunning(words ...string) []int {
	var out []int
	for _, pid := range a.processes() {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		line := strings.ToLower(strings.ReplaceAll(string(cmdline), "\x00", " "))
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, strings.ToLower(w))
		}
		if all {
			out = append(out, pid)
		}
	}
	return out
}

var handedOver = regexp.MustCompile(`handed over \(adopt\) to pid (\d+) in (\d+) ms`)

// adoptToNext starts the app (with args) with a ready backend and hands it over in
// adopt mode to a copy of the exe, probing the backend's port throughout.
// It checks the old instance exits 0 and the new one serves the same
// backend process, and returns the status after.
func adoptToNext(t *testing.T, a *winApp, args ...string) (before, after model.Status) {
	t.Helper()
	l := a.startLauncher(a.exe, args...)
	before = a.waitReady(l, 0)
	b := before.Backends[0]
	next := a.copyExe("hermes-desktop-next.exe")
	p := probe(fmt.Sprintf("http://127.0.0.1:%d/api/status", b.Port))
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	out, errOut, code := a.cli("handoff", "--to", testbin.WinPath(next), "--mode", "adopt")
	took := time.Since(start)
	if code != 0 {
		p.finish()
		logText, _ := os.ReadFile(filepath.Join(a.state, "launcher.log"))
		t.Fatalf("handoff --mode adopt: exit %d: %s%s\nlauncher.log:\n%s", code, out, errOut, logText)
	}
	if code := l.waitExit(t, 30*time.Second); code != 0 {
		t.Errorf("old launcher exit code %d, want 0; output:\n%s", code, l.output)
	}
	after = a.waitReady(nil, 0)
	time.Sleep(100 * time.Millisecond)
	checks, fails, slowest := p.finish()
	m := handedOver.FindStringSubmatch(out)
	t.Logf("adopt handoff under Wine: the CLI said %q; its call took %v; %d of %d probes of the backend's port failed (slowest answer %v)",
		strings.TrimSpace(out), took.Round(time.Millisecond), fails, checks, slowest.Round(time.Millisecond))
	if m == nil {
		t.Fatalf("handoff said %q, want %q", out, handedOver)
	}
	if fails > 0 || checks < 20 {
		t.Errorf("probes of the backend during the handoff: %d failed of %d, want 0 failed of at least 20", fails, checks)
	}
	got := after.Backends[0]
	if after.Instance.PID == before.Instance.PID || strconv.Itoa(after.Instance.PID) != m[1] {
		t.Errorf("instance pid %d after the handoff (before %d, handoff said %s): want the new one", after.Instance.PID, before.Instance.PID, m[1])
	}
	if got.PID != b.PID || got.ShimPID != b.ShimPID || got.Port != b.Port || got.State != model.StateReady {
		t.Errorf("backend after the handoff: pid %d shim %d port %d %s; want the same pid %d shim %d port %d, ready",
			got.PID, got.ShimPID, got.Port, got.State, b.PID, b.ShimPID, b.Port)
	}
	return before, after
}

// An adopt handoff keeps the backend (same PID, same port, 0 failed
// probes); the old exe's launcher is gone, only the new one, the shim and
// the backend run; and the new instance stops it all as its own.
func TestWineHandoffAdoptKeepsTheBackend(t *testing.T) {
	a := newWinApp(t)
	adoptToNext(t, a)
	if left := a.linuxPIDsRunning(`\hermes-desktop.exe run`); len(left) > 0 {
		t.Errorf("the old launcher is still running: %v", describe(left))
	}
	if n := waitCount(a, 4, time.Second); n != 3 {
		t.Errorf("processes after the handoff: got %d %v, want 3 (new launcher, shim, backend)", n, describe(a.processes()))
	}
	if out, errOut, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop (new instance): exit %d: %s%s", code, out, errOut)
	}
	if _, left := a.waitGone(10 * time.Second); len(left) > 0 {
		t.Errorf("left after stop: %v", describe(left))
	}
}

// The strict promise after a handoff: the successor holds the jobs alone,
// so however it dies, the backend tree dies with it, children that left
// the backend's console group included.
func TestWineHandoffAdoptThenSuccessorKilled(t *testing.T) {
	for _, how := range []string{"SIGKILL of the Wine process", "TerminateProcess"} {
		t.Run(how, func(t *testing.T) {
			a := newWinApp(t)
			_, after := adoptToNext(t, a, "--backend-cmd", testbin.WinPath(a.exe)+" serve --host 127.0.0.1 --port 0 --spawn-setsid-children 2")
			succ := a.linuxPIDsRunning("hermes-desktop-next.exe", " run ")
			if len(succ) != 1 {
				t.Fatalf("the successor's Wine process: got %v, want one", describe(succ))
			}
			// successor, shim, backend, two children that left its console group
			if n := waitCount(a, 5, 20*time.Second); n != 5 {
				t.Fatalf("processes before the kill: got %d %v, want 5", n, describe(a.processes()))
			}
			killed := time.Now()
			if how == "TerminateProcess" {
				tk := exec.Command(testbin.WineLoader, "taskkill", "/F", "/PID", strconv.Itoa(after.Instance.PID))
				tk.Env = a.command(a.exe).Env
				if out, err := tk.CombinedOutput(); err != nil {
					t.Fatalf("taskkill /F /PID %d: %v: %s", after.Instance.PID, err, out)
				}
			} else if err := syscall.Kill(succ[0], syscall.SIGKILL); err != nil { // the test's own (tagged, its exe copy)
				t.Fatal(err)
			}
			took, left := a.waitGone(10 * time.Second)
			if len(left) > 0 {
				t.Fatalf("left %v after the successor was killed: %v", time.Since(killed), describe(left))
			}
			t.Logf("tree gone %v after the successor was killed (%s)", took, how)
		})
	}
}

// A successor that answers `version` but exits before taking over: the
// handoff fails, nothing changed (the old instance in charge, the same
// backend ready, its port answering throughout).
func TestWineHandoffAdoptToBrokenSuccessor(t *testing.T) {
	a := newWinApp(t)
	l := a.startLauncher(a.exe)
	before := a.waitReady(l, 0)
	b := before.Backends[0]
	bat := filepath.Join(a.dir, "app", "broken.bat")
	script := "@echo off\r\nif \"%1\"==\"version\" (\r\n  " + testbin.WinPath(a.exe) + " version\r\n  exit /b 0\r\n)\r\nexit /b 3\r\n"
	if err := os.WriteFile(bat, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := probe(fmt.Sprintf("http://127.0.0.1:%d/api/status", b.Port))
	out, errOut, code := a.cli("handoff", "--to", testbin.WinPath(bat), "--mode", "adopt", "--timeout", "30s")
	checks, fails, _ := p.finish()
	if code == 0 || !strings.Contains(errOut, "handoff failed") || !strings.Contains(errOut, "exited before taking over") {
		t.Fatalf("handoff to a broken successor: exit %d, %q%q; want a clear failure before the takeover", code, out, errOut)
	}
	t.Logf("the broken successor: %s", strings.TrimSpace(errOut))
	st := a.waitReady(l, 0)
	if st.Instance.PID != before.Instance.PID || st.Backends[0].PID != b.PID || st.Backends[0].Port != b.Port {
		t.Errorf("after the failed handoff: instance %d backend %d port %d; want %d, %d, %d untouched",
			st.Instance.PID, st.Backends[0].PID, st.Backends[0].Port, before.Instance.PID, b.PID, b.Port)
	}
	if fails > 0 {
		t.Errorf("probes during the failed handoff: %d failed of %d, want 0", fails, checks)
	}
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	l.waitExit(t, 30*time.Second)
}
