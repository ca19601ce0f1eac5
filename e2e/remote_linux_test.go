package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
)

var runningLine = regexp.MustCompile(`hermes-desktop running \(pid`)

// remoteApp is an app with backends on a real sshd's "remote" (this
// machine, the test's own user, a fresh HOME), reached through the ssh
// config file the settings name.
type remoteApp struct {
	srv *sshtest.Server
	l   *testbin.Launcher
}

// startRemoteApp saves backends (each given host sshtest.Alias) and the
// disconnect grace, then starts the app.
func startRemoteApp(t *testing.T, grace string, backends ...settings.Backend) *remoteApp {
	t.Helper()
	srv := sshtest.Start(t)
	base := t.TempDir()
	l := testbin.Base(t, filepath.Join(base, "state"), filepath.Join(base, "hermes-home"), testbin.Tag(t))
	must(t, os.MkdirAll(l.StateDir, 0o700))
	for i := range backends {
		backends[i].Host = sshtest.Alias
	}
	must(t, settings.Save(l.StateDir, settings.Settings{Backends: backends, SSHConfig: srv.ClientConfig, DisconnectGrace: grace}))
	l.AddEnv(remotecore.CoresEnv + "=" + coretest.Dir(t, l.Bin))
	a := &remoteApp{srv: srv, l: l.StartAnother("--no-boot-reap")}
	if _, err := a.l.Stdout.WaitMatchN(runningLine, 1, readyWait); err != nil {
		t.Fatalf("the app did not start: %v\n%s", err, a.l.Stderr.String())
	}
	return a
}

// remoteBackend waits until the named backend is ready and returns its
// status.
func (a *remoteApp) remoteBackend(t *testing.T, name string, d time.Duration) model.BackendStatus {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, b := range status(t, a.l).Backends {
			if b.Name == name && b.State == model.StateReady {
				return b
			}
			if b.Name == name && time.Now().After(deadline) {
				t.Fatalf("backend %s: %s after %v: %+v (remote %+v)\nstderr:\n%s", name, b.State, d, b, b.Remote, a.l.Stderr.String())
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRemoteBackendLifecycle: a serve and a dashboard on one host become
// ready over one authentication; each answers through its local forward
// (the dashboard's page is HTML), the status names the host and the
// remote run; Hermes' lock names the backend on the remote; stop leaves
// nothing there.
func TestRemoteBackendLifecycle(t *testing.T) {
	a := startRemoteApp(t, "30s",
		settings.Backend{Name: "far", Kind: settings.KindServe},
		settings.Backend{Name: "page", Kind: settings.KindDashboard})
	far := a.remoteBackend(t, "far", 60*time.Second)
	page := a.remoteBackend(t, "page", 60*time.Second)
	if far.Host != sshtest.Alias || far.Remote == nil || far.Remote.Connection != "connected" || far.Remote.Port == 0 || far.PID == 0 {
		t.Errorf("far: got host %q remote %+v pid %d, want %s, connected, a remote port and PID", far.Host, far.Remote, far.PID, sshtest.Alias)
	}
	lock, err := os.ReadFile(filepath.Join(far.Remote.LockDir, "backend.lock.json"))
	if err != nil || !strings.Contains(string(lock), `"pid": `) {
		t.Errorf("remote lock: %v %s", err, lock)
	}
	resp, err := http.Get(page.PageURL)
	if err != nil {
		t.Fatalf("the dashboard's page through the tunnel: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("page %s: got %d %s, want 200 text/html", page.PageURL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if n := a.srv.Authentications(); n != 1 {
		t.Errorf("authentications: got %d, want 1 for two backends", n)
	}
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
	if _, err := os.Stat(far.Remote.LockDir); !os.IsNotExist(err) {
		t.Errorf("the remote lock directory is still there: %v", err)
	}
}
