package remotewd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog/netns"
)

const testOwnershipID = "0123456789abcdef0123456789abcdef"

// testWatchdog is a remote watchdog run by a test as the app runs one: the
// test binary as the core, its channel on pipes, a home of its own.
type testWatchdog struct {
	t       testing.TB
	cmd     *exec.Cmd
	in      io.WriteCloser
	lines   chan string
	home    string
	backend RemoteBackend
	port    int
	exited  chan struct{}
}

// runWatchdog runs the remote watchdog with the test backend, sends
// "start", and returns once its backend line and listening port came; the
// port is sent back as the app does. env is added to the watchdog's.
func runWatchdog(t testing.TB, env []string, flags ...string) *testWatchdog {
	t.Helper()
	return runWatchdogAs(t, nil, os.Args[0], env, flags...)
}

// launchWatchdog starts the remote watchdog from exe, as cred's user
// when cred is not nil (its home made theirs), and sends "start".
func launchWatchdog(t testing.TB, cred *syscall.Credential, exe string, env []string, flags ...string) *testWatchdog {
	t.Helper()
	home, err := os.MkdirTemp("", "hd") // short: a unix socket's path is at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if cred != nil {
		if err := os.Chown(home, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{RemoteSubcommand, "--ownership-id=" + testOwnershipID, "--spawn-nonce=0123456789abcdef",
		"--token=none", "--grace=2s"}, flags...)
	w := &testWatchdog{t: t, home: home, lines: make(chan string, 256), exited: make(chan struct{})}
	w.cmd = exec.Command(exe, append(args, "--", exe, testBackend)...)
	w.cmd.Env = append(append(os.Environ(), childEnv+"=1", "HOME="+home), env...)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	w.cmd.Stderr = os.Stderr
	w.in, _ = w.cmd.StdinPipe()
	out, _ := w.cmd.StdoutPipe()
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	go func() { _ = w.cmd.Wait(); close(w.exited) }()
	t.Cleanup(w.end)
	io.WriteString(w.in, TagStart+"\n")
	return w
}

// runWatchdogAs is launchWatchdog, then the backend line and the port.
func runWatchdogAs(t testing.TB, cred *syscall.Credential, exe string, env []string, flags ...string) *testWatchdog {
	t.Helper()
	w := launchWatchdog(t, cred, exe, env, flags...)
	w.next(TagBackend, &w.backend)
	line := w.next(TagOut, nil)
	if _, err := fmt.Sscanf(line, "listening on %d", &w.port); err != nil {
		t.Fatalf("the backend said %q, want listening on PORT", line)
	}
	io.WriteString(w.in, TagPort+" "+strconv.Itoa(w.port)+"\n")
	return w
}

// next returns the payload of the next line tagged tag, decoded into v
// when v is not nil.
func (w *testWatchdog) next(tag string, v any) string {
	w.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("the watchdog's channel ended before a %s line", tag)
			}
			got, payload, _ := strings.Cut(l, " ")
			if got == TagError {
				w.t.Fatalf("the watchdog said: %s", payload)
			}
			if got != tag {
				continue
			}
			if v != nil {
				if err := json.Unmarshal([]byte(payload), v); err != nil {
					w.t.Fatalf("%s line %q: %v", tag, l, err)
				}
			}
			return payload
		case <-timeout:
			w.t.Fatalf("no %s line", tag)
		}
	}
}

// stop asks for the teardown and returns the exit line.
func (w *testWatchdog) stop() RemoteExit {
	w.t.Helper()
	io.WriteString(w.in, TagStop+"\n")
	var ex RemoteExit
	w.next(TagExit, &ex)
	<-w.exited
	return ex
}

// end closes the channel (the app gone: the tree goes) and, should the
// watchdog outlive that, kills its group, which it leads.
func (w *testWatchdog) end() {
	w.in.Close()
	select {
	case <-w.exited:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		<-w.exited
	}
}

// get fetches path from the backend over c's dialer.
func get(dial func(context.Context, string, string) (net.Conn, error), path string) (string, error) {
	c := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
	resp, err := c.Get("http://backend" + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return string(b), fmt.Errorf("%s: %s", resp.Status, b)
	}
	return string(b), err
}

func (w *testWatchdog) viaSocket(path string) (string, error) {
	return get(func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", w.backend.Socket)
	}, path)
}

func (w *testWatchdog) viaHostPort(path string) (string, error) {
	return get(func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(w.port)))
	}, path)
}

// needNamespaces skips where this machine refuses them (the fallback's
// tests below run everywhere).
func needNamespaces(t *testing.T) {
	t.Helper()
	t.Setenv(childEnv, "1") // the probe runs this binary as the core
	if err := netns.Probe(); err != nil {
		t.Skipf("this machine refuses user and network namespaces: %v", err)
	}
}

func netnsOf(t *testing.T, pid int) string {
	t.Helper()
	l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// An isolated backend runs in a network namespace of its own, keeps its
// real PID in the lock and the backend line, and is reached through its
// 0600 socket in a 0700 directory and not through the host's loopback;
// the relay is not in its samples, and the stop leaves no process and no
// directory.
func TestIsolatedBackendReachedOnlyThroughItsSocket(t *testing.T) {
	needNamespaces(t)
	// In a tree cgroup where this machine gives one: the namespace and the
	// cgroup come from the same clone.
	w := runWatchdog(t, nil, "--sample-every=100ms", "--cgroup=hd-netns-"+strconv.Itoa(os.Getpid()))
	b := w.backend
	t.Logf("containment %s %s %s", b.Containment, b.Cgroup, b.Reason)
	dir := filepath.Join(w.home, netns.Dir, testOwnershipID)
	if b.Isolation != IsolationNetns || b.Socket != filepath.Join(dir, netns.BackendSocket) || b.Relay == nil {
		t.Fatalf("backend line: got isolation %q socket %q relay %v (%s); want netns, %s, a relay", b.Isolation, b.Socket, b.Relay, b.IsolationReason, filepath.Join(dir, netns.BackendSocket))
	}
	for path, want := range map[string]os.FileMode{dir: os.ModeDir | 0o700, b.Socket: os.ModeSocket | 0o600, filepath.Join(dir, netns.ProxySocket): os.ModeSocket | 0o600} {
		if fi, err := os.Lstat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: got %v, %v; want mode %v", path, fi.Mode(), err, want)
		}
	}
	if netnsOf(t, b.Backend.PID) == netnsOf(t, os.Getpid()) {
		t.Errorf("the backend %d runs in the host's network namespace", b.Backend.PID)
	}
	lockData, err := os.ReadFile(filepath.Join(b.LockDir, hermes.SSHLockName))
	var lock hermes.SSHLock
	if err == nil {
		err = json.Unmarshal(lockData, &lock)
	}
	if err != nil || lock.PID != b.Backend.PID {
		t.Errorf("the lock names PID %d (%v), want the backend's real PID %d", lock.PID, err, b.Backend.PID)
	}
	if got, err := w.viaSocket("/"); err != nil || got != fmt.Sprintf("hello from %d", b.Backend.PID) {
		t.Errorf("through the socket: got %q, %v; want hello from %d", got, err, b.Backend.PID)
	}
	if got, err := w.viaHostPort("/"); err == nil && strings.HasPrefix(got, "hello from") {
		t.Errorf("the host's 127.0.0.1:%d reaches the backend (%q): every account there could", w.port, got)
	}
	var smp RemoteSample
	w.next(TagSample, &smp)
	for _, p := range smp.Processes {
		if p.PID == b.Relay.PID {
			t.Errorf("the sample lists the relay %d as part of the backend's tree", p.PID)
		}
	}
	w.stop()
	if alive, _ := proc.Alive(*b.Relay); alive {
		t.Errorf("the relay %v outlived the watchdog", b.Relay)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the namespace's directory is still there (%v)", err)
	}
}

// An isolated backend's egress is the watchdog's proxy: plain http and a
// CONNECT tunnel (https) reach a server on the host's loopback through
// it, while a direct connection from the namespace does not; NO_PROXY
// keeps the namespace's own loopback direct.
func TestIsolatedBackendEgressThroughProxy(t *testing.T) {
	needNamespaces(t)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "plain ok") }))
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "tls ok") }))
	defer tlsSrv.Close()
	w := runWatchdog(t, nil)
	if w.backend.Isolation != IsolationNetns {
		t.Fatalf("not isolated: %s", w.backend.IsolationReason)
	}
	for target, want := range map[string]string{plain.URL: "plain ok", tlsSrv.URL: "tls ok"} {
		if got, err := w.viaSocket("/fetch?url=" + url.QueryEscape(target)); err != nil || got != want {
			t.Errorf("the backend fetching %s through its proxy: got %q, %v; want %q", target, got, err, want)
		}
	}
	host := strings.TrimPrefix(plain.URL, "http://")
	if got, err := w.viaSocket("/direct?addr=" + url.QueryEscape(host)); err == nil {
		t.Errorf("a direct connection from the namespace to the host's %s worked (%q)", host, got)
	}
	if got, _ := w.viaSocket("/env?k=NO_PROXY"); got != "127.0.0.1,localhost" {
		t.Errorf("NO_PROXY: got %q, want 127.0.0.1,localhost", got)
	}
}

// --netns=off runs the backend as before: in the host's network, reached
// on the host's loopback, the backend line saying it is not isolated and
// why, no namespace directory.
func TestNetnsOffRunsInTheHostNetwork(t *testing.T) {
	w := runWatchdog(t, nil, "--netns="+NetnsOff)
	checkHostNetwork(t, w, "turned off")
}

// A host that refuses the namespace (the probe fails) runs the backend in
// its own network, and the backend line says why.
func TestProbeRefusedRunsInTheHostNetwork(t *testing.T) {
	w := runWatchdog(t, []string{probeFailEnv + "=operation not permitted (simulated)"})
	checkHostNetwork(t, w, "operation not permitted (simulated)")
}

func checkHostNetwork(t *testing.T, w *testWatchdog, reason string) {
	t.Helper()
	b := w.backend
	if b.Isolation != IsolationNone || b.Socket != "" || b.Relay != nil || !strings.Contains(b.IsolationReason, reason) {
		t.Errorf("backend line: got isolation %q socket %q relay %v reason %q; want none, no socket, a reason with %q", b.Isolation, b.Socket, b.Relay, b.IsolationReason, reason)
	}
	if netnsOf(t, b.Backend.PID) != netnsOf(t, os.Getpid()) {
		t.Errorf("the backend %d runs in a namespace of its own", b.Backend.PID)
	}
	if got, err := w.viaHostPort("/"); err != nil || got != fmt.Sprintf("hello from %d", b.Backend.PID) {
		t.Errorf("on the host's 127.0.0.1:%d: got %q, %v", w.port, got, err)
	}
	if _, err := os.Lstat(filepath.Join(w.home, netns.Dir, testOwnershipID)); !os.IsNotExist(err) {
		t.Errorf("a namespace directory was made (%v)", err)
	}
	w.stop()
}

// The relay's death ends the run (the backend can no longer be reached),
// and the exit line says why.
func TestRelayGoneEndsTheRun(t *testing.T) {
	needNamespaces(t)
	w := runWatchdog(t, nil)
	if w.backend.Relay == nil {
		t.Fatalf("not isolated: %s", w.backend.IsolationReason)
	}
	if err := proc.Signal(*w.backend.Relay, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var ex RemoteExit
	w.next(TagExit, &ex)
	if !strings.Contains(ex.Why, "relay") {
		t.Errorf("exit: got why %q, want the relay named", ex.Why)
	}
	waitfor.Until(t, 10*time.Second, "the backend to be gone", func() bool { alive, _ := proc.Alive(w.backend.Backend); return !alive })
}

// The remote reap of a dead session removes its namespace's directory
// with the rest of its files (its sockets are served by no one).
func TestReapRemovesTheNamespaceDir(t *testing.T) {
	home := t.TempDir()
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	gone := proc.Identity{PID: self.PID, Start: "linux:1", BootID: self.BootID} // our PID, another start: not alive
	sdir := filepath.Join(home, RemoteSessionsDir)
	ndir := filepath.Join(home, netns.Dir, testOwnershipID)
	for _, d := range []string{sdir, ndir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ndir, netns.BackendSocket), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sess, _ := json.Marshal(RemoteSession{OwnershipID: testOwnershipID, SpawnNonce: "0123456789abcdef", Shim: gone, Backend: gone})
	if err := os.WriteFile(filepath.Join(sdir, testOwnershipID+".json"), sess, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := reapSessions(home, time.Second)
	if len(rep.Decisions) != 1 || rep.Decisions[0].Action != "cleaned" {
		t.Fatalf("reap: got %+v, want one cleaned session", rep)
	}
	if _, err := os.Lstat(ndir); !os.IsNotExist(err) {
		t.Errorf("the dead session's namespace directory is still there (%v)", err)
	}
}

// As an unprivileged user (nobody), the case the isolation is for: the
// probe's trial passes where the kernel lets that user make the
// namespaces, the backend is reached through its socket, and it runs with
// no capability (the one the held start needed for the loopback is
// dropped before the relay starts and the backend execs).
func TestIsolatedAsAnUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to become another user")
	}
	dir, err := os.MkdirTemp("", "hdbin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "core")
	data, err := os.ReadFile(os.Args[0])
	if err == nil {
		err = os.WriteFile(exe, data, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	w := runWatchdogAs(t, &syscall.Credential{Uid: 65534, Gid: 65534}, exe, nil)
	b := w.backend
	if b.Isolation != IsolationNetns {
		t.Skipf("this kernel refuses an unprivileged user the namespaces: %s", b.IsolationReason)
	}
	if got, err := w.viaSocket("/"); err != nil || got != fmt.Sprintf("hello from %d", b.Backend.PID) {
		t.Errorf("through the socket: got %q, %v", got, err)
	}
	for what, pid := range map[string]int{"the backend": b.Backend.PID, "the relay": b.Relay.PID} {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(status), "\n") {
			if k, v, _ := strings.Cut(l, ":"); strings.HasPrefix(k, "Cap") && k != "CapBnd" && strings.Trim(strings.TrimSpace(v), "0") != "" {
				t.Errorf("%s has capabilities: %s", what, l)
			}
		}
	}
	w.stop()
}

// An isolated backend that exits on its own is said to have exited: the
// relay, stopped by the teardown that follows, is not taken for lost.
func TestIsolatedBackendExitIsItsOwn(t *testing.T) {
	needNamespaces(t)
	w := runWatchdog(t, nil)
	if w.backend.Relay == nil {
		t.Fatalf("not isolated: %s", w.backend.IsolationReason)
	}
	_, _ = w.viaSocket("/exit")
	var ex RemoteExit
	w.next(TagExit, &ex)
	if ex.Code != 3 || ex.Why != "the backend exited" {
		t.Errorf("exit: got code %d why %q, want 3, the backend exited", ex.Code, ex.Why)
	}
}

// A namespace that cannot be prepared after the probe passed fails the
// start, saying how to turn isolation off: the backend is never run
// exposed instead, and nothing of the run is left (its namespace's and
// lock directories, its session file).
func TestNamespaceFailureFailsTheStart(t *testing.T) {
	needNamespaces(t)
	w := launchWatchdog(t, nil, os.Args[0], []string{holdFailEnv + "=loopback refused (simulated)"})
	var said string
	timeout := time.After(20 * time.Second)
	for said == "" {
		select {
		case l, ok := <-w.lines:
			if !ok {
				t.Fatal("the channel ended without an error line")
			}
			tag, payload, _ := strings.Cut(l, " ")
			switch tag {
			case TagBackend, TagOut:
				t.Fatalf("the backend started: %s", l)
			case TagError:
				said = payload
			}
		case <-timeout:
			t.Fatal("no error line")
		}
	}
	if !strings.Contains(said, "loopback refused (simulated)") || !strings.Contains(said, "HERMES_DESKTOP_NETNS=off") {
		t.Errorf("error line: got %q, want the reason and how to turn isolation off", said)
	}
	<-w.exited
	for _, p := range []string{filepath.Join(w.home, netns.Dir, testOwnershipID), filepath.Join(hermes.SSHRoot(w.home), testOwnershipID),
		filepath.Join(w.home, RemoteSessionsDir, testOwnershipID+".json")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left (%v)", p, err)
		}
	}
}
