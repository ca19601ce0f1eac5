package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/internal/waitfor"
)

// stopSwapAt makes a build stop its swap after that many of the unit's
// entries have moved, and wait there to be killed
// (backend/update/unit/fault.go).
func stopSwapAt(step int) string {
	return "-X hermes-desktop/backend/update/unit.faultStopAfter=" + strconv.Itoa(step)
}

// TestUpdateCrashMidSwap: the app is killed (SIGKILL) in the middle of
// the swap of its unit, the install then a mix of both versions on disk;
// started again, it puts the install back whole before anything else, the
// old version until the new executable had come in, the new one from
// then on, says which (its log, the notice in status), and serves. The
// units hold LICENSE, cores/ and the executable, moved in that order.
func TestUpdateCrashMidSwap(t *testing.T) {
	for _, tc := range []struct {
		step      int
		installed string
		says      string
	}{
		{2, "1.0.0", "was cut short; it was undone: 1.0.0 is installed, whole"},
		{3, "1.1.0", "was cut short after its last step; it was finished: 1.1.0 is installed, whole"},
	} {
		t.Run("killed after step "+strconv.Itoa(tc.step), func(t *testing.T) {
			_, priv := updateKey()
			exe := install(t, buildVersion(t, "1.0.0", stopSwapAt(tc.step)), update.TypePortable)
			next := unitArtifact(t, buildVersion(t, "1.1.0", ""))
			f := newFeedServer(t)
			f.publish(t, priv, "1.1.0", next, next)
			l, _ := startInstalled(t, exe, f, "3s")

			applied := make(chan string, 1)
			go func() { // ends when the killed instance's socket closes
				out, errOut, code := l.CLI("update", "apply")
				applied <- strconv.Itoa(code) + ": " + out + errOut
			}()
			stopped := regexp.MustCompile(`unit: fault: stopped after step ` + strconv.Itoa(tc.step) + ` `)
			if _, err := l.Stderr.WaitMatchN(stopped, 1, 2*time.Minute); err != nil {
				t.Fatalf("the swap did not stop at step %d: %v\n%s", tc.step, err, l.Stderr.String())
			}
			wantMix(t, exe, tc.step)
			must(t, l.Signal(syscall.SIGKILL)) // the test's own launcher
			if _, err := l.WaitExit(15 * time.Second); err != nil {
				t.Fatal(err)
			}
			t.Logf("update apply, its instance killed: %s", <-applied)

			again := l.StartAnother("--update-check-interval", "0")
			again.WaitReady(1, readyWait)
			var st model.Status
			waitfor.Try(readyWait, func() bool {
				s, ok := statusOf(t, again)
				st = s
				return ok && len(s.Backends) == 1 && s.Backends[0].State == model.StateReady
			})
			if st.Instance.Version != tc.installed || !strings.Contains(strings.Join(st.Notices, "\n"), tc.says) {
				t.Errorf("after the restart: version %s, notices %q; want %s and %q", st.Instance.Version, st.Notices, tc.installed, tc.says)
			}
			if !strings.Contains(again.Stderr.String(), "update: an update from 1.0.0 to 1.1.0 "+tc.says) {
				t.Errorf("the restarted instance's log does not say what it did:\n%s", again.Stderr.String())
			}
			wantInstalled(t, exe, tc.installed)
			stopAndCheck(t, again)
		})
	}
}

// wantMix checks that the install, stopped at step, is a mix: cores/
// already moved, and the executable the old one until the last step.
func wantMix(t *testing.T, exe string, step int) {
	t.Helper()
	dir := filepath.Dir(exe)
	if _, err := os.Stat(filepath.Join(dir, unit.JournalFile)); err != nil {
		t.Errorf("no journal while the swap is stopped: %v", err)
	}
	if v, _ := os.ReadFile(filepath.Join(dir, "cores", "VERSION")); strings.TrimSpace(string(v)) != "1.1.0" {
		t.Errorf("cores/VERSION is %q while the swap is stopped after step %d, want the new one's", v, step)
	}
}

// wantInstalled checks the install is version's, whole: the executable,
// its cores, nothing left of the swap but .old (kept when the update
// stands).
func wantInstalled(t *testing.T, exe, version string) {
	t.Helper()
	if got := versionOf(t, exe); got != version {
		t.Errorf("the installed executable says %s, want %s", got, version)
	}
	wantCores(t, exe, version)
	entries, err := os.ReadDir(filepath.Dir(exe))
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "LICENSE cores hermes-desktop install-type"
	if version == "1.1.0" {
		want = "LICENSE cores hermes-desktop hermes-desktop.old install-type"
	}
	if got := strings.Join(names, " "); got != want {
		t.Errorf("the install holds %s, want %s", got, want)
	}
}
