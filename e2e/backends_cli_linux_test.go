package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/internal/testbin"
)

// `backends add` through the running app, then an update: the new version
// is in charge with both backends, nothing rolls back, and the kept
// backend answers every probe throughout (issue 31, item 1 and "Backends
// from the command line"). Before the handoff waited on the new
// instance's own word, this update timed out and rolled back.
func TestBackendsAddThenUpdate(t *testing.T) {
	_, priv := updateKey()
	exe := install(t, buildVersion(t, "1.0.0", ""), update.TypePortable)
	next := unitArtifact(t, buildVersion(t, "1.1.0", ""))
	f := newFeedServer(t)
	f.publish(t, priv, "1.1.0", next, next)
	l, first := startInstalled(t, exe, f, "3s")

	out, errOut, code := l.CLI("backends", "add", "api", "--kind", "serve")
	if code != 0 || !strings.Contains(out, "added backend api: starting now") {
		t.Fatalf("backends add: exit %d: %s%s", code, out, errOut)
	}
	// The same words as the window's Add for a name taken in another case.
	if _, errOut, code := l.CLI("backends", "add", "API"); code != 2 || !strings.Contains(errOut, "another backend has this name") {
		t.Errorf("backends add API beside api: exit %d, %q; want a refusal naming the clash", code, errOut)
	}
	l.WaitReady(2, readyWait)
	saved, notice := settings.Load(l.StateDir)
	if notice != "" || savedNames(saved) != "api,default" {
		t.Fatalf("saved after add: %+v (%s), want default and api", saved.Backends, notice)
	}

	w := watch(l.Tag, first.URL+"/api/status")
	time.Sleep(100 * time.Millisecond)
	started := time.Now()
	out, errOut, code = l.CLI("update", "apply")
	took := time.Since(started)
	time.Sleep(100 * time.Millisecond)
	w.finish()
	if code != 0 || !strings.Contains(out, "updated 1.0.0 -> 1.1.0") {
		t.Fatalf("update apply after backends add: exit %d after %s\n%s%s", code, took, out, errOut)
	}
	if fails, n := w.healthFails.Load(), w.healthChecks.Load(); fails > 0 || n < 20 {
		t.Errorf("the kept backend during the update: %d failed of %d probes, want 0 failed", fails, n)
	}
	st := status(t, l)
	if st.Instance.Version != "1.1.0" || names(st) != "api,default" || !allReady(st, 0) {
		t.Fatalf("after the update: %s, backends %+v; want 1.1.0 with default and api ready", st.Instance.Version, st.Backends)
	}
	if k := backendNamed(st, "default"); k.PID != first.PID || k.Port != first.Port {
		t.Errorf("the kept backend was not adopted: pid %d port %d, want %d %d", k.PID, k.Port, first.PID, first.Port)
	}
	if code, err := l.WaitExit(15 * time.Second); err != nil || code != 0 {
		t.Fatalf("the old instance, watching the health window: exit %d, %v", code, err)
	}
	if strings.Contains(l.Stdout.String(), "rolled back") || update.ReadProbation(filepath.Join(l.StateDir, "updates")) != nil {
		t.Errorf("the update did not pass its window cleanly:\n%s", l.Stdout.String())
	}

	// Removed through the new instance: its tree goes, the list is saved.
	if out, errOut, code := l.CLI("backends", "remove", "api"); code != 0 {
		t.Fatalf("backends remove: exit %d: %s%s", code, out, errOut)
	}
	if st := status(t, l); names(st) != "default" {
		t.Errorf("after remove: %+v", st.Backends)
	}
	if r := countRoles(l.Tag); len(r.backends) != 1 {
		t.Errorf("after remove: %+v, want the removed backend's tree gone", r)
	}
	stopSuccessor(t, l)
}

// With no app running, `backends` edits the saved list with the same
// validation, and the next start runs it.
func TestBackendsWithoutTheApp(t *testing.T) {
	base := t.TempDir()
	l := testbin.Base(t, filepath.Join(base, "state"), filepath.Join(base, "hermes-home"), testbin.Tag(t))
	cli := func(args ...string) (string, string, int) { return l.CLI(append([]string{"backends"}, args...)...) }
	if out, _, code := cli("list"); code != 0 || !strings.Contains(out, "not running") || !strings.Contains(out, "default") {
		t.Fatalf("backends list, nothing saved: exit %d\n%s", code, out)
	}
	if out, errOut, code := cli("add", "web", "--kind", "custom", "--command", l.Bin+" serve --host 127.0.0.1 --port 0",
		"--ready-regex", `port (\d+)`, "--health-path", "/api/health"); code != 0 {
		t.Fatalf("backends add: exit %d: %s%s", code, out, errOut)
	}
	// Every error at once, in the window's words.
	_, errOut, code := cli("add", "x", "--kind", "custom", "--command", "srv", "--ready-regex", `port \d+`, "--grace", "soon")
	if code != 2 || !strings.Contains(errOut, "needs a group for the port") || !strings.Contains(errOut, `"soon" is not a duration`) {
		t.Errorf("a bad add: exit %d, %q; want both errors", code, errOut)
	}
	if _, errOut, code := cli("add", "NUL"); code != 2 || !strings.Contains(errOut, "device name on Windows") {
		t.Errorf("backends add NUL: exit %d, %q", code, errOut)
	}
	if _, errOut, code := cli("remove", "nope"); code != 2 || !strings.Contains(errOut, `no such backend "nope"`) {
		t.Errorf("backends remove nope: exit %d, %q", code, errOut)
	}
	if out, errOut, code := cli("remove", "default"); code != 0 || !strings.Contains(out, "removed backend default") {
		t.Fatalf("backends remove default: exit %d: %s%s", code, out, errOut)
	}
	s := l.StartAnother("--grace", "2s")
	s.WaitReady(1, readyWait)
	if st := status(t, s); names(st) != "web" {
		t.Errorf("the next start runs %+v, want web alone", st.Backends)
	}
	stopAndCheck(t, s)
}

// savedNames are the saved backends' names, sorted, comma-separated.
func savedNames(s settings.Settings) string {
	var st model.Status
	for _, b := range s.Backends {
		st.Backends = append(st.Backends, model.BackendStatus{Name: b.Name})
	}
	return names(st)
}

// Restarting a backend the user stopped is refused, saying Start starts it
// (the tray's Restart NAME started it without a word), and restarting all
// passes it by (issue 31, item 9).
func TestRestartLeavesAStoppedBackendStopped(t *testing.T) {
	l := testbin.StartLauncher(t, "--grace", "1s")
	l.WaitReady(1, readyWait)
	if out, errOut, code := l.CLI("stop", "--backend", "default"); code != 0 {
		t.Fatalf("stop --backend default: exit %d: %s%s", code, out, errOut)
	}
	if _, errOut, code := l.CLI("restart", "--backend", "default"); code == 0 || !strings.Contains(errOut, "is stopped; Start starts it") {
		t.Errorf("restart of a stopped backend: exit %d, %q; want a refusal saying Start starts it", code, errOut)
	}
	if out, errOut, code := l.CLI("restart"); code != 0 {
		t.Errorf("restart (all): exit %d: %s%s", code, out, errOut)
	}
	time.Sleep(300 * time.Millisecond)
	if st := status(t, l); st.Backends[0].State != model.StateStopped {
		t.Errorf("after restart: %s, want it left stopped", st.Backends[0].State)
	}
	stopAndCheck(t, l)
}
