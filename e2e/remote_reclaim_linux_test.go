package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/watchdog/remotewd"
)

// A connection that goes quiet without closing (sleep, a Wi-Fi change: the
// session's ssh SIGSTOPped, then SIGKILLed 10 s later) keeps the remote
// backend for the disconnect grace; the app's next session claims it back.

// quietThenKill stops the host's session's ssh, waits, then kills it (the
// app's keepalive may have ended it first).
func (a *remoteApp) quietThenKill(t *testing.T, quiet time.Duration) {
	t.Helper()
	session := a.localSSH(t, sessionMarker)
	must(t, syscall.Kill(session, syscall.SIGSTOP))
	time.Sleep(quiet)
	_ = syscall.Kill(session, syscall.SIGKILL)
}

// connectionStates polls the named backend's connection until stop is
// closed and sends what it saw (each state once, in order) on the
// returned channel.
func (a *remoteApp) connectionStates(t *testing.T, name string, stop <-chan struct{}) <-chan []string {
	seen := make(chan []string, 1)
	go func() {
		var states []string
		for {
			for _, s := range status(t, a.l).Backends {
				if s.Name == name && s.Remote != nil && (len(states) == 0 || states[len(states)-1] != s.Remote.Connection) {
					states = append(states, s.Remote.Connection)
				}
			}
			select {
			case <-stop:
				seen <- states
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return seen
}

// TestRemoteQuietSessionReclaimed: the session's ssh SIGSTOPped, then
// SIGKILLed after 10 s, under a 30 s grace: the card says reconnecting,
// then the app's new session claims the same remote backend (same PID,
// same watchdog, no restart), whose page answers again.
func TestRemoteQuietSessionReclaimed(t *testing.T) {
	const grace = 30 * time.Second
	a := startRemoteApp(t, grace.String(), settings.Backend{Name: "far", Kind: settings.KindDashboard})
	b := a.remoteBackend(t, "far", 60*time.Second)
	stop := make(chan struct{})
	states := a.connectionStates(t, "far", stop)
	a.quietThenKill(t, 10*time.Second)
	killed := time.Now()
	var now model.BackendStatus
	waitfor.Try(grace, func() bool {
		for _, s := range status(t, a.l).Backends {
			if s.Name == "far" {
				now = s
			}
		}
		return now.State == model.StateReady && now.Remote != nil && now.Remote.Connection == "connected" && a.srv.Authentications() == 2
	})
	back := time.Since(killed)
	close(stop)
	t.Logf("connection states: %v; authentications %d; connected again %v after the ssh client's SIGKILL (status polled)", <-states, a.srv.Authentications(), back.Round(time.Millisecond))
	if now.PID != b.PID || now.ShimPID != b.ShimPID || now.Restarts != 0 || now.Remote == nil || now.Remote.Connection != "connected" {
		t.Fatalf("after the quiet session: pid %d shim %d (were %d %d), %d restarts, remote %+v; want the same backend reclaimed, connected\n%s",
			now.PID, now.ShimPID, b.PID, b.ShimPID, now.Restarts, now.Remote, readLogs(t, a.l.StateDir))
	}
	if !running(b.PID) {
		t.Errorf("the remote backend %d is gone", b.PID)
	}
	if logs := readLogs(t, a.l.StateDir); !strings.Contains(logs, "claimed the backend on "+a.srv.Tag) && !strings.Contains(logs, "claimed the backend on") {
		t.Errorf("the backend's log does not say it was reclaimed:\n%s", logs)
	}
	resp, err := http.Get(now.PageURL)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the page after the reclaim: %v %v", resp, err)
	}
	resp.Body.Close()
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(15 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}

// TestRemoteQuietSessionPastGraceEnds: the same, but the host accepts no
// new connection for 40 s (its sshd listener stopped): past the grace
// nothing of the backend is left there (tree, lock, session file, claim
// socket), and once the host answers again the app starts a fresh one.
func TestRemoteQuietSessionPastGraceEnds(t *testing.T) {
	const grace = 30 * time.Second
	a := startRemoteApp(t, grace.String(), settings.Backend{Name: "far", Kind: settings.KindDashboard})
	b := a.remoteBackend(t, "far", 60*time.Second)
	down := time.Now()
	a.srv.StopAccepting(t)
	a.quietThenKill(t, 10*time.Second)
	took := waitRemoteGone(t, 40*time.Second-time.Since(down), "past the grace, the host unreachable", b.PID, b.ShimPID)
	t.Logf("remote tree gone %v after the session went quiet (grace %v)", took+10*time.Second, grace)
	sessions := filepath.Join(a.srv.Home, remotewd.RemoteSessionsDir)
	for _, p := range []string{b.Remote.LockDir, filepath.Join(sessions, "*.json"), filepath.Join(sessions, "*.sock")} {
		if m, _ := filepath.Glob(p); len(m) > 0 {
			t.Errorf("left on the remote past the grace: %v", m)
		}
	}
	if _, err := os.Stat(b.Remote.LockDir); !os.IsNotExist(err) {
		t.Errorf("the lock directory %s is still there: %v", b.Remote.LockDir, err)
	}
	time.Sleep(40*time.Second - time.Since(down))
	a.srv.ResumeAccepting(t)
	fresh := a.waitNewRemote(t, "far", b.PID)
	if logs := readLogs(t, a.l.StateDir); !strings.Contains(logs, "could not reclaim the backend on") {
		t.Errorf("the backend's log does not say the reclaim failed:\n%s", logs)
	}
	t.Logf("fresh remote backend %d after the host came back", fresh.PID)
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(15 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}
