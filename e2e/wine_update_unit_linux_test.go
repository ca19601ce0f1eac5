package e2e

// The Windows install's self-update under Wine: builds of the Windows app
// made here with the test's update key, installed as the NSIS installer
// lays them out (hermes-desktop.exe, cores\, LICENSE.txt, install-type
// "nsis-user"), updated from a loopback feed whose windows-amd64 artifact
// is the next version's unit.

import (
	"encoding/json"
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
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// buildWindows cross-builds the Windows app at version with the test key
// and extra -ldflags (once per test process).
func buildWindows(t *testing.T, version, extra string) string {
	t.Helper()
	versionsMu.Lock()
	defer versionsMu.Unlock()
	key := "windows " + version + " " + extra
	if p, ok := versions[key]; ok {
		return p
	}
	pub, _ := updateKey()
	path := filepath.Join(testbin.Dir(t), fmt.Sprintf("hermes-desktop-%d.exe", len(versions)))
	cmd := exec.Command("go", "build", "-ldflags", fmt.Sprintf("-X main.version=%s -X main.updatePubKey=%s %s", version, pub.String(), extra), "-o", path, ".")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for windows: %v\n%s", err, out)
	}
	versions[key] = path
	return path
}

// installWindows lays out a's install: the Windows build exe as a.exe,
// cores (a cores directory) beside it, the license and the marker.
func installWindows(t *testing.T, a *winApp, exe, cores string) {
	t.Helper()
	layUnitAs(t, filepath.Dir(a.exe), unit.ExeWindows, "LICENSE.txt", exe, cores)
	must(t, os.WriteFile(filepath.Join(filepath.Dir(a.exe), update.MarkerFile), []byte(update.TypeNSISUser+"\r\n"), 0o644))
}

// windowsArtifact is the update artifact of the Windows build exe with
// the cores in cores.
func windowsArtifact(t *testing.T, exe, cores string) []byte {
	t.Helper()
	dir := t.TempDir()
	layUnitAs(t, dir, unit.ExeWindows, "LICENSE.txt", exe, cores)
	return packUnit(t, dir)
}

// winCores is what `remote-cores --json` of a's install says.
func (a *winApp) winCores(t *testing.T) update.CoresInfo {
	t.Helper()
	out, errOut, code := a.cli("remote-cores", "--json")
	var c update.CoresInfo
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil {
		t.Fatalf("remote-cores --json: exit %d %q %q", code, out, errOut)
	}
	return c
}

// wantInstall checks a's install is version's: the exe, and the cores
// beside it as remote-cores finds them.
func (a *winApp) wantInstall(t *testing.T, version string) {
	t.Helper()
	out, _, code := a.cli("version", "--json")
	var v update.VersionInfo
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Version != version {
		t.Errorf("the installed exe: version --json exit %d %q, want %s", code, out, version)
	}
	if c := a.winCores(t); c.Version != version || !strings.HasSuffix(strings.ToLower(c.Dir), `\app\cores`) {
		t.Errorf("remote-cores: %+v, want %s's beside the exe", c, version)
	}
}

// The Windows install updated under Wine: the new unit's cores come with
// the new exe (remote-cores names 1.1.0), and 1.1.0 claims the remote
// backend on the real sshd (the same PID, as on Linux) over a session of
// its own, whose core is 1.1.0's: uploaded from the cores that came with it.
func TestWineUpdateCarriesTheRemoteCores(t *testing.T) {
	a := newWinApp(t)
	_, priv := updateKey()
	linuxOld, linuxNext := buildVersion(t, "1.0.0", ""), buildVersion(t, "1.1.0", "")
	installWindows(t, a, buildWindows(t, "1.0.0", ""), coretest.Dir(t, linuxOld))
	f := newFeedServer(t)
	f.publishPlatforms(t, priv, "1.1.0", map[string][]byte{winPlatform: windowsArtifact(t, buildWindows(t, "1.1.0", ""), coretest.Dir(t, linuxNext))})
	srv := sshtest.Start(t)
	wineSSH(t, a, srv)
	must(t, os.MkdirAll(a.state, 0o700))
	must(t, settings.Save(a.state, settings.Settings{
		Backends:        []settings.Backend{{Name: "far", Kind: settings.KindServe, Host: sshtest.Alias}},
		DisconnectGrace: "30s",
	}))
	l := a.startLauncher(a.exe, "--update-feed", f.url(), "--update-health-window", "3s", "--update-check-interval", "0")
	before := a.waitReady(l, 0)
	wantRemoteCore(t, srv, "1.0.0")

	out, errOut, code := a.cli("update", "apply")
	if code != 0 || !strings.Contains(out, "updated 1.0.0 -> 1.1.0") {
		t.Fatalf("update apply: exit %d\n%s%s\n%s", code, out, errOut, l.output)
	}
	a.wantInstall(t, "1.1.0")
	var after model.Status
	if !waitfor.Try(2*wineReadyWait, func() bool {
		st, ok := a.status()
		after = st
		return ok && st.Instance.Version == "1.1.0" && len(st.Backends) == 1 && st.Backends[0].State == model.StateReady &&
			st.Backends[0].Remote != nil && st.Backends[0].Remote.Connection == "connected"
	}) || after.Backends[0].PID != before.Backends[0].PID {
		t.Fatalf("1.1.0 did not claim the remote backend %d: %+v %+v\n%s", before.Backends[0].PID, after.Instance, after.Backends, l.output)
	}
	wantRemoteCore(t, srv, "1.1.0")
	if code := l.waitExit(t, 60*time.Second); code != 0 {
		t.Errorf("the watcher: exit %d; output:\n%s", code, l.output)
	}
	if _, _, code := a.cli("stop"); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if left := srv.WaitClean(15 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}

// A crash of the Windows app in the middle of the swap (its Wine process
// SIGKILLed after cores\ moved, or after the exe came in): started again,
// the install is whole, old or new, and the app says which and serves.
func TestWineUpdateCrashMidSwap(t *testing.T) {
	for _, tc := range []struct {
		step      int
		installed string
		says      string
	}{
		{2, "1.0.0", "it was undone: 1.0.0 is installed, whole"},
		{3, "1.1.0", "it was finished: 1.1.0 is installed, whole"},
	} {
		t.Run("killed after step "+strconv.Itoa(tc.step), func(t *testing.T) {
			a := newWinApp(t)
			_, priv := updateKey()
			installWindows(t, a, buildWindows(t, "1.0.0", stopSwapAt(tc.step)), fakeCores(t, "1.0.0"))
			f := newFeedServer(t)
			f.publishPlatforms(t, priv, "1.1.0", map[string][]byte{winPlatform: windowsArtifact(t, buildWindows(t, "1.1.0", ""), fakeCores(t, "1.1.0"))})
			l := a.startLauncher(a.exe, "--update-feed", f.url(), "--update-health-window", "3s", "--update-check-interval", "0")
			a.waitReady(l, 0)
			applied := make(chan string, 1)
			go func() { // ends when the killed instance's pipe closes
				out, errOut, code := a.cli("update", "apply")
				applied <- strconv.Itoa(code) + ": " + out + errOut
			}()
			stopped := regexp.MustCompile(`unit: fault: stopped after step ` + strconv.Itoa(tc.step) + ` `)
			if !waitfor.Try(2*time.Minute, func() bool { return stopped.MatchString(l.output.String()) }) {
				t.Fatalf("the swap did not stop at step %d:\n%s", tc.step, l.output)
			}
			must(t, l.cmd.Process.Signal(syscall.SIGKILL)) // our own child
			l.waitExit(t, 30*time.Second)
			t.Logf("update apply, its instance killed: %s", <-applied)

			again := a.startLauncher(a.exe, "--update-check-interval", "0")
			st := a.waitReady(again, 0)
			if st.Instance.Version != tc.installed || !strings.Contains(strings.Join(st.Notices, "\n"), tc.says) {
				t.Errorf("after the restart: version %s, notices %q; want %s and %q", st.Instance.Version, st.Notices, tc.installed, tc.says)
			}
			a.wantInstall(t, tc.installed)
			if _, err := os.Stat(filepath.Join(filepath.Dir(a.exe), unit.JournalFile)); err == nil {
				t.Error("the journal is still there")
			}
			if _, _, code := a.cli("stop"); code != 0 {
				t.Fatalf("stop: exit %d", code)
			}
			again.waitExit(t, 30*time.Second)
		})
	}
}
