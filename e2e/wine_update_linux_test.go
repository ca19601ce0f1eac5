package e2e

// A real self-update of the Windows app under Wine: versions of the
// Windows build made with the test's key, installed as the installer lays
// them out (wine_update_unit_linux_test.go), a loopback feed of their unit
// artifacts, `update apply` against the running instance. The update hands the backend over (adopt): same
// PID, its port answering throughout; a version that dies after taking
// over is rolled back, and the backend served again by the old version.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// winPlatform is the Windows build's manifest key.
var winPlatform = update.PlatformOf("windows", "amd64", "")

// installWin installs version 1.0.0 as the Windows installer lays it
// out (installWindows) and starts it with the feed and a health window.
func installWin(t *testing.T, a *winApp, f *feedServer, window string) *winLauncher {
	t.Helper()
	installWindows(t, a, buildWindows(t, "1.0.0", ""), fakeCores(t, "1.0.0"))
	return a.startLauncher(a.exe, "--grace", "2s", "--update-feed", f.url(),
		"--update-health-window", window, "--update-check-interval", "0")
}

// winRelease is the Windows update artifact of version, built with extra
// -ldflags.
func winRelease(t *testing.T, version, extra string) map[string][]byte {
	return map[string][]byte{winPlatform: windowsArtifact(t, buildWindows(t, version, extra), fakeCores(t, version))}
}

// applyProbed runs `update apply`, probing the backend's port from before
// to after, and returns apply's output and the probes' figures.
func applyProbed(t *testing.T, a *winApp, b model.BackendStatus) (out string, took time.Duration, checks, fails int) {
	t.Helper()
	p := probe(fmt.Sprintf("http://127.0.0.1:%d/api/status", b.Port))
	waitfor.Try(2*time.Second, func() bool { return p.n.Load() >= 20 })
	start := time.Now()
	out, errOut, code := a.cli("update", "apply")
	took = time.Since(start)
	time.Sleep(100 * time.Millisecond)
	checks, fails, _ = p.finish()
	if code != 0 {
		t.Fatalf("update apply: exit %d\n%s%s", code, out, errOut)
	}
	return out, took, checks, fails
}

func TestWineUpdateKeepsTheBackend(t *testing.T) {
	a := newWinApp(t)
	_, priv := updateKey()
	f := newFeedServer(t)
	f.publishPlatforms(t, priv, "1.1.0", winRelease(t, "1.1.0", ""))
	l := installWin(t, a, f, "5s")
	first := a.waitReady(l, 0)
	b := first.Backends[0]
	out, took, checks, fails := applyProbed(t, a, b)
	t.Logf("update apply under Wine took %v, %d of %d probes of the backend's port failed; it said:\n%s", took.Round(time.Millisecond), fails, checks, out)
	if !strings.Contains(out, "updated 1.0.0 -> 1.1.0") {
		t.Errorf("update apply said %q, want 1.0.0 -> 1.1.0", out)
	}
	if fails > 0 || checks < 20 {
		t.Errorf("probes of the backend during the update: %d failed of %d, want 0 failed of at least 20", fails, checks)
	}
	st := a.waitReady(nil, 0)
	if got := st.Backends[0]; st.Instance.Version != "1.1.0" || st.Instance.PID == first.Instance.PID || got.PID != b.PID || got.Port != b.Port {
		t.Errorf("after the update: version %s instance %d, backend pid %d port %d; want 1.1.0, a new instance, the same backend %d on %d",
			st.Instance.Version, st.Instance.PID, got.PID, got.Port, b.PID, b.Port)
	}
	// The old process watches the window, then exits 0.
	if code := l.waitExit(t, 60*time.Second); code != 0 || !strings.Contains(l.output.String(), "1.1.0 passed its health window") {
		t.Errorf("the watcher: exit %d, want 0 after the window; output:\n%s", code, l.output)
	}
	if st := a.waitReady(nil, 0); st.Backends[0].PID != b.PID {
		t.Errorf("after the window: backend %d, want %d", st.Backends[0].PID, b.PID)
	}
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
}

// A new version that dies half a second after taking the backend over:
// its shims followed it as their owner and ended their trees with it, so
// the old version, put back, starts the backend anew and serves it.
func TestWineUpdateRollsBackAVersionThatDies(t *testing.T) {
	a := newWinApp(t)
	_, priv := updateKey()
	f := newFeedServer(t)
	f.publishPlatforms(t, priv, "1.2.0", winRelease(t, "1.2.0", badExit))
	l := installWin(t, a, f, "20s")
	first := a.waitReady(l, 0)
	before, err := os.ReadFile(a.exe)
	must(t, err)
	out, _, _, _ := applyProbed(t, a, first.Backends[0])
	t.Logf("update apply said:\n%s", out)
	if !waitfor.Try(60*time.Second, func() bool {
		return regexp.MustCompile(`update: rolled back to 1\.0\.0`).MatchString(l.output.String())
	}) {
		t.Fatalf("no rollback; the watcher's output:\n%s", l.output)
	}
	if code := l.waitExit(t, 30*time.Second); code != 0 {
		t.Errorf("the watcher: exit %d, want 0; output:\n%s", code, l.output)
	}
	if after, _ := os.ReadFile(a.exe); !bytes.Equal(before, after) {
		t.Error("the installed exe is not the old version again")
	}
	st := a.waitReady(nil, 0)
	if st.Instance.Version != "1.0.0" || httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/api/status", st.Backends[0].Port)) != 200 {
		t.Errorf("after the rollback: version %s, backend %+v; want 1.0.0 serving it", st.Instance.Version, st.Backends[0])
	}
	t.Logf("backend pid %d before, %d after the rollback (restarted: it ended with the failed version)", first.Backends[0].PID, st.Backends[0].PID)
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
}

// A backend that crash-loops under the new version (terminated twice here)
// rolls it back while the new instance still runs: it hands the backend
// back to the restored old version in an adopt handoff of its own (the
// launcher's job passed on again), so the backend keeps its process and
// its history.
func TestWineUpdateRollsBackACrashLoopAndKeepsTheBackend(t *testing.T) {
	a := newWinApp(t)
	_, priv := updateKey()
	f := newFeedServer(t)
	f.publishPlatforms(t, priv, "1.1.0", winRelease(t, "1.1.0", ""))
	l := installWin(t, a, f, "60s")
	first := a.waitReady(l, 0)
	applyProbed(t, a, first.Backends[0])
	last := 0 // the backend last killed; the first one was handed over
	for crash := 1; crash <= 2; crash++ {
		st := a.waitReady(nil, last)
		if st.Instance.Version != "1.1.0" {
			t.Fatalf("crash %d: version %s serving, want 1.1.0", crash, st.Instance.Version)
		}
		last = st.Backends[0].PID
		tk := exec.Command(testbin.WineLoader, "taskkill", "/F", "/PID", strconv.Itoa(last)) // the test's own backend
		tk.Env = a.command(a.exe).Env
		if out, err := tk.CombinedOutput(); err != nil {
			t.Fatalf("taskkill /F /PID %d: %v: %s", last, err, out)
		}
	}
	if !waitfor.Try(90*time.Second, func() bool {
		return strings.Contains(l.output.String(), "update: rolled back to 1.0.0; the backends were handed back")
	}) {
		t.Fatalf("no rollback with the backend handed back; the watcher's output:\n%s", l.output)
	}
	if code := l.waitExit(t, 30*time.Second); code != 0 {
		t.Errorf("the watcher: exit %d, want 0", code)
	}
	var kept model.BackendStatus
	waitfor.Try(wineReadyWait, func() bool {
		st, ok := a.status()
		if ok && st.Instance.Version == "1.0.0" && len(st.Backends) == 1 && st.Backends[0].State == model.StateReady {
			kept = st.Backends[0]
			return true
		}
		return false
	})
	if kept.PID == 0 || kept.PID == last || kept.Crashes < 2 {
		t.Errorf("after the rollback: backend %+v; want it ready under 1.0.0, not the killed %d, with its 2 crashes (handed back, not started afresh)", kept, last)
	}
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
}
