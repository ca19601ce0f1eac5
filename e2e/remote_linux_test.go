package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reapreport"
	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog/remotewd"
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
	return startRemoteAppOn(t, sshtest.Start(t), grace, nil, backends...)
}

// startRemoteAppOn is startRemoteApp on srv, with more flags for run.
func startRemoteAppOn(t *testing.T, srv *sshtest.Server, grace string, flags []string, backends ...settings.Backend) *remoteApp {
	t.Helper()
	base := t.TempDir()
	l := testbin.Base(t, filepath.Join(base, "state"), filepath.Join(base, "hermes-home"), testbin.Tag(t))
	must(t, os.MkdirAll(l.StateDir, 0o700))
	for i := range backends {
		backends[i].Host = sshtest.Alias
	}
	must(t, settings.Save(l.StateDir, settings.Settings{Backends: backends, SSHConfig: srv.ClientConfig, DisconnectGrace: grace}))
	l.AddEnv(remotecore.CoresEnv + "=" + coretest.Dir(t, l.Bin))
	a := &remoteApp{srv: srv, l: l.StartAnother(append([]string{"--no-boot-reap"}, flags...)...)}
	if _, err := a.l.Stdout.WaitMatchN(runningLine, 1, readyWait); err != nil {
		t.Fatalf("the app did not start: %v\n%s", err, a.l.Stderr.String())
	}
	return a
}

// remoteBackend waits until the named backend is ready and returns its
// status.
func (a *remoteApp) remoteBackend(t *testing.T, name string, d time.Duration) model.BackendStatus {
	t.Helper()
	var b model.BackendStatus
	if waitfor.Try(d, func() bool {
		for _, s := range status(t, a.l).Backends {
			if s.Name == name {
				b = s
				return s.State == model.StateReady
			}
		}
		return false
	}) {
		return b
	}
	t.Fatalf("backend %s: %s after %v: %+v (remote %+v)\nstderr:\n%s", name, b.State, d, b, b.Remote, a.l.Stderr.String())
	return b
}

// TestRemoteBackendLifecycle: a serve, a dashboard and a custom server on
// one host become ready over one authentication; each answers through its local forward
// (the dashboard's page is HTML), the status names the host and the
// remote run; Hermes' lock names the backend on the remote; stop leaves
// nothing there.
func TestRemoteBackendLifecycle(t *testing.T) {
	a := startRemoteApp(t, "30s",
		settings.Backend{Name: "far", Kind: settings.KindServe},
		settings.Backend{Name: "page", Kind: settings.KindDashboard},
		settings.Backend{Name: "py", Kind: settings.KindCustom, Command: "python3 -m http.server 0 --bind 127.0.0.1", ReadyRegex: `port (\d+)`, HealthPath: "/"})
	far := a.remoteBackend(t, "far", 60*time.Second)
	page := a.remoteBackend(t, "page", 60*time.Second)
	py := a.remoteBackend(t, "py", 60*time.Second)
	if py.Remote == nil || py.Port == py.Remote.Port {
		t.Errorf("py: got %+v, want a local forward to a remote port", py.Remote)
	}
	if far.Host != sshtest.Alias || far.Remote == nil || far.Remote.Connection != "connected" || far.Remote.Port == 0 || far.PID == 0 {
		t.Errorf("far: got host %q remote %+v pid %d, want %s, connected, a remote port and PID", far.Host, far.Remote, far.PID, sshtest.Alias)
	}
	// No hermes there: the core's built-in backend runs, and the status
	// says so with what really runs, not this machine's command.
	if !far.Builtin || len(far.Command) < 2 || far.Command[1] != "serve" || !slices.Contains(far.Command, "--ssh-session-token-file") {
		t.Errorf("far: got builtin %v, command %q; want the built-in serve with Hermes' SSH flags", far.Builtin, far.Command)
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
		t.Errorf("authentications: got %d, want 1 for three backends", n)
	}
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
	if _, err := os.Stat(far.Remote.LockDir); !os.IsNotExist(err) {
		t.Errorf("the remote lock directory is still there: %v", err)
	}
}

// localSSH finds, among the app's tagged processes, the ssh client whose
// command line contains marker (sessionMarker: a host's session).
// sessionMarker is in the command line of a host's one ssh session
// (backend/ssh: no ssh multiplexing of its own).
const sessionMarker = "ControlPath=none"

func (a *remoteApp) localSSH(t *testing.T, marker string) int {
	t.Helper()
	for _, pid := range testbin.Tagged(a.l.Tag) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if filepath.Base(argv[0]) == "ssh" && slices.ContainsFunc(argv, func(s string) bool { return strings.Contains(s, marker) }) {
			return pid
		}
	}
	t.Fatalf("no local ssh client with %q among the app's processes", marker)
	return 0
}

// running reports whether pid is a live process, not a zombie (an orphan's
// zombie stays until whatever adopted it reaps it, which a container's
// init may never do).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(after, "Z")
}

// waitRemoteGone waits up to d for every pid (on the "remote": this machine) to
// be gone and returns how long that took, failing the test otherwise.
func waitRemoteGone(t *testing.T, d time.Duration, what string, pids ...int) time.Duration {
	t.Helper()
	start := time.Now()
	alive := 0
	if !waitfor.Try(d, func() bool {
		alive = 0
		for _, pid := range pids {
			if pid <= 0 {
				t.Fatalf("%s: no PID to wait for in %v", what, pids)
			}
			if running(pid) {
				alive++
			}
		}
		return alive == 0
	}) {
		t.Fatalf("%s: %d of %v still alive after %v", what, alive, pids, d)
	}
	return time.Since(start)
}

// TestRemoteTreeGoneWhenTheAppDies: the app SIGKILLed, its ssh client
// SIGKILLed, its ssh client stopped past the disconnect grace (a
// partition that leaves the connection open): each time the remote
// backend and its watchdog are gone within the grace + 5 s, with their
// lock; the app that lives on starts a fresh one.
func TestRemoteTreeGoneWhenTheAppDies(t *testing.T) {
	const grace = 4 * time.Second
	a := startRemoteApp(t, grace.String(), settings.Backend{Name: "far", Kind: settings.KindServe})
	b := a.remoteBackend(t, "far", 60*time.Second)

	// The host's session killed (its ssh client): the channel closes with
	// it, the tree goes.
	must(t, syscall.Kill(a.localSSH(t, sessionMarker), syscall.SIGKILL))
	took := waitRemoteGone(t, grace+5*time.Second, "after SIGKILL of the session's ssh client", b.PID, b.ShimPID)
	t.Logf("ssh client SIGKILL -> remote tree gone in %v", took)
	b = a.waitNewRemote(t, "far", b.PID)

	// A partition: the session's ssh stopped, the connection open but
	// silent. (The app's multiplexer sees its keepalive unanswered and
	// ends that ssh, which may be gone by the SIGCONT.)
	session := a.localSSH(t, sessionMarker)
	must(t, syscall.Kill(session, syscall.SIGSTOP))
	took = waitRemoteGone(t, grace+5*time.Second, "after SIGSTOP of the session past the grace", b.PID, b.ShimPID)
	_ = syscall.Kill(session, syscall.SIGCONT)
	t.Logf("partition -> remote tree gone in %v (grace %v)", took, grace)
	if took < grace-time.Second {
		t.Errorf("torn down after %v, before the grace %v", took, grace)
	}
	b = a.waitNewRemote(t, "far", b.PID)

	// The app killed: its session dies with it (its shim), every channel
	// closes, the tree goes.
	must(t, a.l.Signal(syscall.SIGKILL))
	took = waitRemoteGone(t, grace+5*time.Second, "after SIGKILL of the app", b.PID, b.ShimPID)
	t.Logf("app SIGKILL -> remote tree gone in %v", took)
	if left := testbin.WaitUntagged(a.l.Tag, 5*time.Second); len(left) > 0 {
		t.Errorf("local processes left after the app's SIGKILL: %v", left)
	}
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote: %v", left)
	}
	if _, err := os.Stat(b.Remote.LockDir); !os.IsNotExist(err) {
		t.Errorf("the remote lock directory is still there: %v", err)
	}
}

// waitNewRemote waits for the named backend to be ready again with a
// remote PID other than old.
func (a *remoteApp) waitNewRemote(t *testing.T, name string, old int) model.BackendStatus {
	t.Helper()
	var b model.BackendStatus
	if waitfor.Try(60*time.Second, func() bool { b = a.remoteBackend(t, name, 60*time.Second); return b.PID != old }) {
		return b
	}
	t.Fatalf("backend %s: no fresh remote backend after %d", name, old)
	return model.BackendStatus{}
}

// TestRemoteBlipReattaches: the session's ssh stopped for less than the grace
// shows "reconnecting", then the same remote backend (same PID, no second
// one) answers through its forward again.
func TestRemoteBlipReattaches(t *testing.T) {
	const grace = 12 * time.Second
	a := startRemoteApp(t, grace.String(), settings.Backend{Name: "far", Kind: settings.KindDashboard})
	b := a.remoteBackend(t, "far", 60*time.Second)
	master := a.localSSH(t, sessionMarker)
	must(t, syscall.Kill(master, syscall.SIGSTOP))
	seen := ""
	waitfor.Try(grace-3*time.Second, func() bool { // resumed well inside the grace
		for _, s := range status(t, a.l).Backends {
			if s.Remote != nil {
				seen = s.Remote.Connection
			}
		}
		return seen == "reconnecting"
	})
	must(t, syscall.Kill(master, syscall.SIGCONT))
	if seen != "reconnecting" {
		t.Errorf("during the blip the connection showed %q, want reconnecting", seen)
	}
	var now model.BackendStatus
	waitfor.Try(15*time.Second, func() bool {
		now = a.remoteBackend(t, "far", 10*time.Second)
		return now.Remote.Connection == "connected"
	})
	if now.PID != b.PID || now.Remote.Connection != "connected" || now.Restarts != 0 {
		t.Fatalf("after the blip: pid %d (was %d), %s, %d restarts; want the same backend, connected", now.PID, b.PID, now.Remote.Connection, now.Restarts)
	}
	resp, err := http.Get(now.PageURL)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the page after the blip: %v %v", resp, err)
	}
	resp.Body.Close()
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}

// TestRemoteHangingHermes: a remote hermes that never says it is ready is
// reported (the start timeout, on the card), and nothing of it is left on
// the remote, however many times it was tried.
func TestRemoteHangingHermes(t *testing.T) {
	srv := sshtest.Start(t)
	bin := filepath.Join(srv.Home, ".local", "bin")
	must(t, os.MkdirAll(bin, 0o700))
	must(t, os.WriteFile(filepath.Join(bin, "hermes"), []byte("#!/bin/sh\necho 'hermes: starting (and hanging)'\nexec sleep 600\n"), 0o700))
	a := startRemoteAppOn(t, srv, "30s", []string{"--start-timeout", "2s"}, settings.Backend{Name: "far", Kind: settings.KindServe})
	b := a.waitFailed(t, 60*time.Second)
	if b.State != model.StateFailed || !strings.Contains(b.LastError, "did not announce a port on "+sshtest.Alias) {
		t.Fatalf("backend: %s, %q; want failed, saying it did not announce a port on %s", b.State, b.LastError, sshtest.Alias)
	}
	if left := a.remoteWork(5 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after the failed starts: %v", left)
	}
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}

// waitFailed waits up to d for the app's first backend to be failed, and
// returns its status then (or at d).
func (a *remoteApp) waitFailed(t *testing.T, d time.Duration) model.BackendStatus {
	t.Helper()
	var b model.BackendStatus
	waitfor.Try(d, func() bool { b = status(t, a.l).Backends[0]; return b.State == model.StateFailed })
	return b
}

// remoteWork waits up to d for the remote to run nothing but the app's
// connection (sshd's own processes and the core serving the session) and
// returns what else is there.
func (a *remoteApp) remoteWork(d time.Duration) []sshtest.Proc {
	var work []sshtest.Proc
	waitfor.Try(d, func() bool {
		work = work[:0]
		for _, p := range a.srv.Processes() {
			if !strings.HasPrefix(p.Args, "sshd:") && !strings.HasSuffix(p.Args, " mux") {
				work = append(work, p)
			}
		}
		return len(work) == 0
	})
	return work
}

// TestRemoteUnknownHostKey: a host whose key is not in known_hosts is
// never connected to; the card says so, with the fingerprint and what to
// run.
func TestRemoteUnknownHostKey(t *testing.T) {
	srv := sshtest.Start(t)
	must(t, os.WriteFile(srv.KnownHosts, nil, 0o600))
	a := startRemoteAppOn(t, srv, "30s", nil, settings.Backend{Name: "far", Kind: settings.KindServe})
	b := a.waitFailed(t, 60*time.Second)
	if b.State != model.StateFailed || !strings.Contains(b.LastError, "SHA256:") || !strings.Contains(b.LastError, "ssh-keyscan") {
		t.Fatalf("backend: %s, %q; want failed, naming the host key's fingerprint and what to run", b.State, b.LastError)
	}
	if n := srv.Authentications(); n != 0 {
		t.Errorf("authentications with an unknown host key: %d, want 0", n)
	}
	if b.Restarts != 0 {
		t.Errorf("an unknown host key was retried %d times: retrying cannot help", b.Restarts)
	}
	stopAndCheck(t, a.l)
}

// TestRemoteReapEndsOnlyOurLeftovers: a custom backend whose remote
// watchdog was SIGKILLed survives it (nothing on its side watches its
// parent); the next start there ends it, as our session file proves it
// ours and its watchdog gone. Beside it, never signalled: a backend of
// another desktop (Hermes' lock, no session file of ours) and a session of
// ours whose watchdog lives (a running app's).
func TestRemoteReapEndsOnlyOurLeftovers(t *testing.T) {
	srv := sshtest.Start(t)
	other := startDecoy(t, "--ssh-session-token-file", "/x", "--ssh-owner-nonce", "0123456789abcdef")
	writeOtherDesktopsLock(t, srv.Home, other)
	live := startDecoy(t)
	writeOurSession(t, srv.Home, strings.Repeat("d", 32), live, aliveIdentity(t, os.Getpid()))
	decoys := []*exec.Cmd{other, live}
	if os.Geteuid() == 0 {
		// Another user's process, named by a session file of ours whose
		// watchdog is gone (a forged or stale file): never signalled.
		nobody := startDecoyAs(t, "65534")
		writeOurSession(t, srv.Home, strings.Repeat("a", 32), nobody, goneIdentity(t))
		decoys = append(decoys, nobody)
	}

	a := startRemoteAppOn(t, srv, "30s", nil, settings.Backend{Name: "py", Kind: settings.KindCustom,
		Command: "python3 -m http.server 0 --bind 127.0.0.1", ReadyRegex: `port (\d+)`, HealthPath: "/"})
	b := a.remoteBackend(t, "py", 60*time.Second)
	must(t, syscall.Kill(b.ShimPID, syscall.SIGKILL))
	time.Sleep(time.Second)
	if syscall.Kill(b.PID, 0) != nil {
		t.Fatalf("the backend %d died with its watchdog: nothing to reap", b.PID)
	}
	a.waitNewRemote(t, "py", b.PID)
	waitRemoteGone(t, 10*time.Second, "the leftover backend after the next start's reap", b.PID)
	if b.Cgroup != "" { // the killed watchdog's tree cgroup goes with the tree (make test left one per run)
		if mnt, err := cgroup.Mount(); err == nil {
			if _, err := os.Stat(filepath.Join(mnt, b.Cgroup)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the reaped session's cgroup %s is still there (%v)", b.Cgroup, err)
			}
		}
	}
	log := readLogs(t, a.l.StateDir)
	if !strings.Contains(log, "remote reap on "+sshtest.Alias+": killed session") {
		t.Errorf("the backend's log does not say what the reap killed:\n%s", log)
	}
	for _, d := range decoys {
		if !running(d.Process.Pid) {
			err := errors.New("not running")
			t.Errorf("decoy %d %v was signalled: %v", d.Process.Pid, d.Args, err)
		}
	}
	if _, err := os.Stat(filepath.Join(srv.Home, ".hermes", "desktop-ssh", strings.Repeat("e", 32), "backend.lock.json")); err != nil {
		t.Errorf("another desktop's lock was touched: %v", err)
	}
	stopAndCheck(t, a.l)
}

// readLogs returns every backend log of the state dir, concatenated.
func readLogs(t *testing.T, stateDir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(stateDir, "logs", "*"))
	var all strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	return all.String()
}

// startDecoy starts a long sleep (python, whose argv takes extra words)
// that the test owns and stops.
func startDecoy(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("python3", append([]string{"-c", "import time; time.sleep(600)"}, args...)...)
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// writeOtherDesktopsLock writes Hermes' lock of another desktop naming pid.
func writeOtherDesktopsLock(t *testing.T, home string, decoy *exec.Cmd) {
	t.Helper()
	id := strings.Repeat("e", 32)
	dir := filepath.Join(home, ".hermes", "desktop-ssh", id)
	must(t, os.MkdirAll(dir, 0o700))
	lock := fmt.Sprintf(`{"schemaVersion":2,"protocolVersion":1,"ownershipId":%q,"spawnNonce":"0123456789abcdef","tokenFingerprint":%q,"pid":%d,"port":0,"profile":"default","hermesPath":"/usr/bin/hermes","hermesHome":"%s/.hermes","logPath":"%s/0123456789abcdef.log","startedAt":"2026-12-01T00:00:00Z"}`,
		id, strings.Repeat("c", 32), decoy.Process.Pid, home, dir)
	must(t, os.WriteFile(filepath.Join(dir, "backend.lock.json"), []byte(lock), 0o600))
}

// startDecoyAs is startDecoy as the user and group uid (setpriv).
func startDecoyAs(t *testing.T, uid string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("setpriv", "--reuid="+uid, "--regid="+uid, "--clear-groups", "/usr/bin/python3", "-c", "import time; time.sleep(600)")
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// aliveIdentity is the identity of the live process pid.
func aliveIdentity(t *testing.T, pid int) proc.Identity {
	t.Helper()
	id, err := proc.Lookup(pid)
	must(t, err)
	return id
}

// goneIdentity is the identity of a process that has exited.
func goneIdentity(t *testing.T) proc.Identity {
	t.Helper()
	cmd := exec.Command("sleep", "0.2")
	must(t, cmd.Start())
	id := aliveIdentity(t, cmd.Process.Pid)
	must(t, cmd.Wait())
	return id
}

// writeOurSession writes a session file of ours, id, whose watchdog is
// shim, naming decoy as its backend.
func writeOurSession(t *testing.T, home, id string, decoy *exec.Cmd, shim proc.Identity) {
	t.Helper()
	backend := aliveIdentity(t, decoy.Process.Pid)
	dir := filepath.Join(home, remotewd.RemoteSessionsDir)
	must(t, os.MkdirAll(dir, 0o700))
	data, err := json.Marshal(remotewd.RemoteSession{OwnershipID: id, SpawnNonce: "fedcba9876543210", Shim: shim, Backend: backend, Created: time.Now()})
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, id+".json"), data, 0o600))
}

// TestRemoteCoreRemovedIsUploadedAgain: the core removed on the host while
// the app runs (another desktop's prune, a person cleaning up) is checked
// and uploaded again at the next start there, instead of failing every
// start until the app restarts.
func TestRemoteCoreRemovedIsUploadedAgain(t *testing.T) {
	a := startRemoteApp(t, "30s", settings.Backend{Name: "far", Kind: settings.KindServe})
	b := a.remoteBackend(t, "far", 60*time.Second)
	cores := filepath.Join(a.srv.Home, remotecore.RemoteDir)
	must(t, os.RemoveAll(cores))
	must(t, syscall.Kill(a.localSSH(t, sessionMarker), syscall.SIGKILL))
	now := a.waitNewRemote(t, "far", b.PID)
	if now.State != model.StateReady {
		t.Fatalf("far after the core was removed: %s, %q", now.State, now.LastError)
	}
	if _, err := os.Stat(cores); err != nil {
		t.Errorf("the core was not uploaded again: %v", err)
	}
	stopAndCheck(t, a.l)
}

// TestRemoteTreeIsWatched: a remote backend's status shows its remote
// tree (the host's PIDs, RSS, descriptors) from its watchdog's samples;
// the leak guard's duplicate policy acts there, through the remote
// watchdog, saying so in the backend's log, and the live duplicates stay
// bounded; the remote reap's decision before the start (a leftover of a
// dead session of ours) is in the status' boot reap report, with the host.
func TestRemoteTreeIsWatched(t *testing.T) {
	srv := sshtest.Start(t)
	leftover := startDecoy(t)
	writeOurSession(t, srv.Home, strings.Repeat("f", 32), leftover, goneIdentity(t))
	a := startRemoteAppOn(t, srv, "30s", []string{"--no-boot-reap=false", "--sample-interval", "300ms", "--max-duplicate-children", "2"},
		settings.Backend{Name: "leaky", Kind: settings.KindServe, Args: []string{"--leak-children-every", "700ms"}})
	b := a.remoteBackend(t, "leaky", 60*time.Second)

	var tree *leakguard.TreeSample
	if !waitfor.Try(20*time.Second, func() bool {
		for _, s := range status(t, a.l).Backends {
			tree = s.Tree
		}
		return tree != nil && len(tree.Processes) > 1 && tree.Processes[0].PID == b.PID
	}) {
		t.Fatalf("no remote tree with the backend %d first and a child in the status: %+v", b.PID, tree)
	}
	if p := tree.Processes[0]; p.RSSBytes <= 0 || p.FDs <= 0 || tree.RSSBytes < p.RSSBytes || tree.FDs < p.FDs {
		t.Errorf("the remote backend in the tree: %+v (totals %d B, %d fds), want its RSS and descriptors", p, tree.RSSBytes, tree.FDs)
	}
	for _, p := range tree.Processes[1:] {
		if ppid := remoteParent(p.PID); ppid != p.PPID {
			t.Errorf("remote process %d: the status says parent %d, the host says %d", p.PID, p.PPID, ppid)
		}
	}

	log := ""
	if !waitfor.Try(30*time.Second, func() bool {
		log = readLogs(t, a.l.StateDir)
		return strings.Contains(log, "the watchdog on "+sshtest.Alias+" stopped remote:")
	}) {
		t.Fatalf("the duplicate policy did not act on the remote tree:\n%s", log)
	}
	if !strings.Contains(log, "asking the watchdog on "+sshtest.Alias+" to stop duplicate child remote:") {
		t.Errorf("the backend's log does not say what was asked of the remote watchdog:\n%s", log)
	}
	time.Sleep(5 * time.Second) // seven more leaked children
	if n := leakedChildren(t, b.PID); n > 4 {
		t.Errorf("%d leaked children run on the remote, want at most 2 kept and 2 newer than a sample", n)
	}

	var remote []reapreport.RemoteDecision
	if st := status(t, a.l); st.BootReap != nil {
		remote = st.BootReap.Remote
	}
	if !slices.ContainsFunc(remote, func(d reapreport.RemoteDecision) bool {
		return d.Host == sshtest.Alias && d.PID == leftover.Process.Pid && d.Action == reapreport.ActionReaped
	}) {
		t.Errorf("the boot reap report's remote decisions: %+v, want the leftover %d reaped on %s", remote, leftover.Process.Pid, sshtest.Alias)
	}
	waitRemoteGone(t, 10*time.Second, "the leftover the remote reap ended", leftover.Process.Pid)
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}

// remoteParent is pid's parent on the "remote" (this machine); -1 when
// gone.
func remoteParent(pid int) int {
	p, err := proc.Stat(pid)
	if err != nil {
		return -1
	}
	return p.PPID
}

// leakedChildren counts the live children of backend that the built-in
// backend's --leak-children-every started.
func leakedChildren(t *testing.T, backend int) int {
	t.Helper()
	ps, err := proc.DescendantsOf(backend)
	must(t, err)
	n := 0
	for _, p := range ps {
		if argv, _ := proc.Cmdline(p.PID); slices.Contains(argv, "leaked") && !p.Zombie {
			n++
		}
	}
	return n
}

// fdLeaker is a custom backend that serves HTTP and opens /dev/null every
// 50 ms, never closing it, until it runs out of descriptors.
const fdLeaker = `import http.server, threading, time
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
print("port", s.server_address[1], flush=True)
def leak(fs=[]):
    while True:
        try:
            fs.append(open("/dev/null"))
        except OSError:
            return
        time.sleep(0.05)
threading.Thread(target=leak, daemon=True).start()
s.serve_forever()
`

// TestRemoteFDPressureRestarts: the leak guard's descriptor ceiling works
// on a remote backend: one that leaks descriptors under a soft limit of 64
// is restarted before it runs out (a new remote PID), and the backend's
// log says why.
func TestRemoteFDPressureRestarts(t *testing.T) {
	script := filepath.Join(t.TempDir(), "leak.py")
	must(t, os.WriteFile(script, []byte(fdLeaker), 0o644))
	a := startRemoteAppOn(t, sshtest.Start(t), "30s", []string{"--sample-interval", "300ms", "--restart-on-fd-pressure"},
		settings.Backend{Name: "fds", Kind: settings.KindCustom, Command: `sh -c "ulimit -n 64 && exec python3 ` + script + `"`,
			ReadyRegex: `port (\d+)`, HealthPath: "/"})
	b := a.remoteBackend(t, "fds", 60*time.Second)
	now := a.waitNewRemote(t, "fds", b.PID)
	if log := readLogs(t, a.l.StateDir); !strings.Contains(log, "restarted before it ran out of file descriptors") {
		t.Errorf("the remote backend %d became %d without the leak guard saying why:\n%s", b.PID, now.PID, log)
	}
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
}
