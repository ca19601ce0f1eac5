package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// TestUpdateCarriesTheRemoteCores: the portable install with real remote
// cores beside it (no HERMES_DESKTOP_CORES: the app finds its own) runs a
// backend on a real sshd; a self-update to 1.1.0 brings 1.1.0's cores with
// the executable: `remote-cores --json` names 1.1.0, 1.1.0 claims the
// running backend over a session of its own core (uploaded from the cores
// that came with it), and once the app is started again its remote
// backend starts afresh and becomes ready. Before units, the new executable found 1.0.0's cores and refused
// to start any remote backend.
func TestUpdateCarriesTheRemoteCores(t *testing.T) {
	_, priv := updateKey()
	old, next := buildVersion(t, "1.0.0", ""), buildVersion(t, "1.1.0", "")
	dir := t.TempDir()
	layUnit(t, dir, old, coretest.Dir(t, old))
	must(t, os.WriteFile(filepath.Join(dir, update.MarkerFile), []byte(update.TypePortable+"\n"), 0o644))
	exe := filepath.Join(dir, "hermes-desktop")
	f := newFeedServer(t)
	art := packDir(t, next, coretest.Dir(t, next))
	f.publish(t, priv, "1.1.0", art, art)

	srv := sshtest.Start(t)
	base := t.TempDir()
	l := testbin.Base(t, filepath.Join(base, "state"), filepath.Join(base, "hermes-home"), testbin.Tag(t))
	l.Bin = exe
	must(t, os.MkdirAll(l.StateDir, 0o700))
	must(t, settings.Save(l.StateDir, settings.Settings{SSHConfig: srv.ClientConfig, DisconnectGrace: "30s",
		Backends: []settings.Backend{{Name: "far", Kind: settings.KindServe, Host: sshtest.Alias}}}))
	a := &remoteApp{srv: srv, l: l.StartAnother("--no-boot-reap", "--update-feed", f.url(), "--update-health-window", "2s", "--update-check-interval", "0")}
	if _, err := a.l.Stdout.WaitMatchN(runningLine, 1, readyWait); err != nil {
		t.Fatalf("the app did not start: %v\n%s", err, a.l.Stderr.String())
	}
	first := a.remoteBackend(t, "far", 60*time.Second)
	wantRemoteCore(t, srv, "1.0.0")

	if out, errOut, code := a.l.CLI("update", "apply"); code != 0 || !strings.Contains(out, "updated 1.0.0 -> 1.1.0") {
		t.Fatalf("update apply: exit %d\n%s%s", code, out, errOut)
	}
	wantCores(t, exe, "1.1.0")
	if code, err := a.l.WaitExit(30 * time.Second); err != nil || code != 0 {
		t.Fatalf("the watcher: exit %d, %v", code, err)
	}
	// 1.1.0 claims the backend over a session of its own, whose core is
	// its own: uploaded from the cores that came with it.
	var b model.BackendStatus
	if !waitfor.Try(90*time.Second, func() bool {
		st, ok := statusOf(t, a.l)
		if ok && st.Instance.Version == "1.1.0" && len(st.Backends) == 1 {
			b = st.Backends[0]
		}
		return b.State == model.StateReady && b.Remote != nil && b.Remote.Connection == "connected"
	}) || b.PID != first.PID {
		t.Fatalf("1.1.0 did not claim the remote backend %d: %+v (remote %+v)\n%s", first.PID, b, b.Remote, readLogs(t, a.l.StateDir))
	}
	wantRemoteCore(t, srv, "1.1.0")
	stopSuccessor(t, a.l)
	if left := srv.WaitClean(15 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v\n%s", left, readLogs(t, a.l.StateDir))
	}

	// Started again, 1.1.0 starts the backend afresh: with its own core.
	again := a.l.StartAnother("--no-boot-reap", "--update-check-interval", "0")
	if _, err := again.Stdout.WaitMatchN(runningLine, 1, readyWait); err != nil {
		t.Fatalf("1.1.0 did not start: %v\n%s", err, again.Stderr.String())
	}
	a.l = again
	b = a.remoteBackend(t, "far", 90*time.Second)
	if st := status(t, again); st.Instance.Version != "1.1.0" || b.PID == first.PID {
		t.Errorf("after the restart: version %s, backend pid %d (was %d); want 1.1.0 with a new remote backend", st.Instance.Version, b.PID, first.PID)
	}
	wantRemoteCore(t, srv, "1.1.0")
	stopSuccessor(t, again)
	if left := srv.WaitClean(15 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}

// wantRemoteCore checks that the remote holds the core of version, where
// remotecore installs it.
func wantRemoteCore(t *testing.T, srv *sshtest.Server, version string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(srv.Home, filepath.FromSlash(remotecore.RemoteDir), version)); err != nil {
		t.Errorf("the remote has no core of %s: %v", version, err)
	}
}
