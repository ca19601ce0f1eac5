package ssh_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/ssh"
	"hermes-desktop/backend/transport"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"

	"hermes-desktop/internal/waitfor"
)

// newHost returns a Host for the test server's alias; Close runs at the
// end of the test, before the server's own cleanup checks for leftovers.
func newHost(t *testing.T, srv *sshtest.Server, opts ssh.Options) *ssh.Host {
	t.Helper()
	if opts.Destination == "" {
		opts.Destination = sshtest.Alias
	}
	if opts.ConfigFile == "" {
		opts.ConfigFile = srv.ClientConfig
	}
	if opts.Self == "" {
		opts.Self = testbin.Path(t)
	}
	if opts.Boot == nil {
		opts.Boot = newBoot(t)
	}
	h, err := ssh.New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestRunUname(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{})
	out, err := h.Run(ctxFor(t), 10*time.Second, nil, "uname", "-sm")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, "Linux ") {
		t.Errorf("uname -sm: got %q, want Linux <machine>", got)
	}
	// The remote commands see the server's own HOME, not the test user's
	// real one: what tests write there is gone with the test.
	out, err = h.Run(ctxFor(t), 10*time.Second, nil, "sh", "-c", `printf %s "$HOME"`)
	if err != nil || string(out) != srv.Home {
		t.Errorf("remote HOME: got %q, %v, want %q", out, err, srv.Home)
	}
	if got := h.Status().String(); got != "connected" {
		t.Errorf("status: got %q, want connected", got)
	}
}

// Run hands stdin to the remote command whole (an upload), and a nil
// stdin is an immediate EOF, not a command waiting for input.
func TestRunStdin(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{})
	ctx := ctxFor(t)
	data := bytes.Repeat([]byte("upload it's \"$HOME\"\x00\n"), 64<<10)
	out, err := h.Run(ctx, 30*time.Second, bytes.NewReader(data), "sh", "-c", "wc -c | tr -d ' '")
	if err != nil {
		t.Fatalf("Run with stdin: %v", err)
	}
	if got, want := strings.TrimSpace(string(out)), strconv.Itoa(len(data)); got != want {
		t.Errorf("bytes the remote read: got %s, want %s", got, want)
	}
	out, err = h.Run(ctx, 30*time.Second, nil, "cat")
	if err != nil || len(out) != 0 {
		t.Errorf("cat with no stdin: got %q, %v, want nothing", out, err)
	}
	if _, err := h.Run(ctx, 30*time.Second, nil, "sh", "-c", "exit 3"); transport.ExitCode(err) != 3 {
		t.Errorf("exit 3: got %v, want an exit status 3", err)
	}
}

// One authentication however many commands and channels (Hermes #90834).
func TestOneAuthenticationPerHost(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{})
	ctx := ctxFor(t)
	// Concurrent first calls: they must share one attempt.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, arg := range []string{"a b", "it's"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := h.Run(ctx, 10*time.Second, nil, "echo", arg)
			if err == nil && strings.TrimSpace(string(out)) != arg {
				err = errors.New("echo: got " + string(out) + ", want " + arg)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	ch, err := h.Start(ctx, "cat")
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if _, err := io.WriteString(ch.Stdin, "lifeline\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
	line, err := bufio.NewReader(ch.Stdout).ReadString('\n')
	if err != nil || line != "lifeline\n" {
		t.Fatalf("channel echo: got %q, %v, want %q", line, err, "lifeline\n")
	}
	_ = ch.Stdin.Close() // the remote cat sees EOF and exits
	if err := ch.Wait(); err != nil {
		t.Fatalf("channel Wait: %v", err)
	}
	if got := srv.Authentications(); got != 1 {
		t.Errorf("authentications: got %d, want 1\n%s", got, srv.LogText())
	}
	if got := srv.Connections(); got != 1 {
		t.Errorf("connections: got %d, want 1", got)
	}
}

// A hung remote command is killed on the remote when its timeout ends
// (Hermes #110478: a probe without a remote timeout leaked every 30 s).
func TestRunTimeoutKillsRemote(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{})
	_, err := h.Run(ctxFor(t), time.Second, nil, "sh", "-c", "sleep 1000 & sleep 1000")
	if !errors.Is(err, transport.ErrTimeout) {
		t.Fatalf("Run: got %v, want ErrTimeout", err)
	}
	// The session's sshd processes and the core serving it stay; nothing
	// else may.
	var left []sshtest.Proc
	waitfor.Try(10*time.Second, func() bool {
		left = left[:0]
		for _, p := range srv.Processes() {
			if !strings.HasPrefix(p.Args, "sshd") && !strings.HasSuffix(p.Args, " mux") {
				left = append(left, p)
			}
		}
		return len(left) == 0
	})
	if len(left) > 0 {
		t.Errorf("left on the remote after the timeout: %v", left)
	}
}

// An unknown host key fails with the fingerprint and what to run, and
// nothing authenticates.
func TestUnknownHostKey(t *testing.T) {
	srv := sshtest.Start(t)
	empty := filepath.Join(srv.Dir, "empty_known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(srv.Dir, "ssh_config_unknown")
	srv.WriteClientConfig(t, conf, empty)
	h := newHost(t, srv, ssh.Options{ConfigFile: conf})
	_, err := h.Run(ctxFor(t), 10*time.Second, nil, "true")
	if !errors.Is(err, ssh.ErrUnknownHostKey) {
		t.Fatalf("Run: got %v, want ErrUnknownHostKey", err)
	}
	fp := fingerprint(t, srv.HostKey)
	for _, want := range []string{sshtest.Alias, "[127.0.0.1]:" + strconv.Itoa(srv.Port), fp,
		// What to run must reach the host as the app does: its config
		// file (the alias is only there) and the known_hosts file it reads.
		"`ssh -F " + conf + " " + sshtest.Alias + "`", "ssh-keyscan", ">> " + empty + "`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q: want it to name %q", err, want)
		}
	}
	if got := srv.Authentications(); got != 0 {
		t.Errorf("authentications: got %d, want 0", got)
	}
	if st := h.Status(); st.State != transport.Failed {
		t.Errorf("state: got %v, want failed (a key problem is not retried)", st)
	}
}

func fingerprint(t *testing.T, pubFile string) string {
	out, err := execOutput("ssh-keygen", "-lf", pubFile)
	if err != nil {
		t.Fatalf("ssh-keygen -lf: %v", err)
	}
	return strings.Fields(out)[1]
}

// The server dies: the Host reconnects with backoff, one attempt at a
// time, a bounded number of attempts, then fails.
func TestReconnectBackoffBounded(t *testing.T) {
	srv := sshtest.Start(t)
	var mu sync.Mutex
	var seen []string
	h := newHost(t, srv, ssh.Options{
		MinBackoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond, MaxAttempts: 4,
		OnState: func(s transport.Status) { mu.Lock(); seen = append(seen, s.String()); mu.Unlock() },
	})
	ctx := ctxFor(t)
	if err := h.Connect(ctx); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	// Something that accepts and drops every connection on the port,
	// counting them: each reconnect attempt is one.
	srv.Kill()
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(srv.Port))
	if err != nil {
		t.Fatalf("listen on the dead server's port: %v", err)
	}
	defer l.Close()
	var accepts int
	acceptDone := make(chan struct{})
	go func() { // ends when l closes
		defer close(acceptDone)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepts++
			mu.Unlock()
			_ = c.Close()
		}
	}()
	waitfor.Try(30*time.Second, func() bool { return h.Status().State == transport.Failed })
	l.Close()
	<-acceptDone
	if st := h.Status(); st.State != transport.Failed {
		t.Fatalf("state: got %v, want failed after 4 attempts", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if accepts != 4 {
		t.Errorf("connection attempts: got %d, want 4 (MaxAttempts)", accepts)
	}
	var reconnecting []string
	for _, s := range seen {
		if strings.HasPrefix(s, "reconnecting (attempt ") && strings.Contains(s, "next in") {
			reconnecting = append(reconnecting, s)
		}
	}
	if len(reconnecting) != 3 || !strings.HasPrefix(reconnecting[2], "reconnecting (attempt 4, next in") {
		t.Errorf("states: got %q, want three \"reconnecting (attempt N, next in S s)\", the last attempt 4", seen)
	}
}

// Close ends the session: its ssh is reaped and the server has no
// session left (checked again by the server's cleanup).
func TestCloseEndsSession(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{})
	if err := h.Connect(ctxFor(t)); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if len(srv.Processes()) == 0 {
		t.Fatal("no sshd session")
	}
	masters := descendantsNamed(t, os.Getpid(), "ssh")
	if len(masters) != 1 {
		t.Fatalf("ssh descendants of the test: got %v, want one session", masters)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if left := childrenNamed(t, "hermes-desktop"); len(left) != 0 {
		t.Errorf("shim children after Close (zombie or alive): got %v, want none", left)
	}
	if alive(masters[0]) {
		t.Errorf("session's ssh %v still there after Close", masters[0])
	}
	if left := srv.WaitClean(10 * time.Second); len(left) != 0 {
		t.Errorf("sessions left on the server after Close: %v", left)
	}
	if got := h.Status().State; got != transport.Closed {
		t.Errorf("state: got %v, want closed", got)
	}
	if _, err := h.Run(context.Background(), time.Second, nil, "true"); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Run after Close: got %v, want ErrClosed", err)
	}
}

// Forward carries a connection from a local port through the session to
// a port on the host (here the host is this machine).
func TestForward(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{})
	remote, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	go func() { // ends when remote closes
		for {
			c, err := remote.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, "through the tunnel\n")
			_ = c.Close()
		}
	}()
	lp := freePort(t)
	ctx := ctxFor(t)
	if err := h.Forward(ctx, lp, transport.Target{Port: remote.Addr().(*net.TCPAddr).Port}); err != nil {
		t.Fatalf("Forward: %v", err)
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(lp))
	if err != nil {
		t.Fatalf("dial the forward: %v", err)
	}
	defer c.Close()
	line, err := bufio.NewReader(c).ReadString('\n')
	if line != "through the tunnel\n" {
		t.Errorf("through the forward: got %q, %v", line, err)
	}
	if got := srv.Authentications(); got != 1 {
		t.Errorf("authentications: got %d, want 1", got)
	}
}

// The session dies with the app however the app ends: a helper process
// (this test binary re-run) connects a Host and is SIGKILLed; its ssh
// goes, and with it the server's session and the core serving it. As a
// plain child of the app, ssh outlived it, holding the connection (issue
// 25).
func TestSessionDiesWithApp(t *testing.T) {
	srv := sshtest.Start(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"="+sshtest.Alias, envHelperConf+"="+srv.ClientConfig,
		envHelperCores+"="+coresDir(t), envHelperSelf+"="+testbin.Path(t))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			_ = cmd.Process.Kill() // our unreaped child
			_ = cmd.Wait()
		}
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != helperConnected {
		t.Fatalf("helper: got %q, want %q", line, helperConnected)
	}
	masters := descendantsNamed(t, cmd.Process.Pid, "ssh")
	if len(masters) != 1 {
		t.Fatalf("ssh descendants of the helper: got %v, want one session", masters)
	}
	t.Cleanup(func() { // an ssh that outlived the helper: ours, by PID and start marker
		if alive(masters[0]) {
			_ = proc.Signal(masters[0], syscall.SIGKILL)
		}
	})
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	reaped = true
	if left := srv.WaitClean(10 * time.Second); len(left) != 0 {
		t.Errorf("sessions left on the server after the app's SIGKILL: %v", left)
	}
	if !gone(masters[0], 10*time.Second) {
		t.Errorf("the session's ssh %v outlived the app", masters[0])
	}
}

// gone waits up to d for id to be no running process.
func gone(id proc.Identity, d time.Duration) bool {
	return waitfor.Try(d, func() bool { return !alive(id) })
}

// descendantsNamed lists root's live descendants whose comm is name.
func descendantsNamed(t *testing.T, root int, name string) []proc.Identity {
	t.Helper()
	ps, err := proc.DescendantsOf(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []proc.Identity
	for _, p := range ps {
		if p.Comm == name && !p.Zombie {
			out = append(out, p.Identity())
		}
	}
	return out
}

// alive is whether id still names a running process (not a zombie):
// the start marker rules out a reused PID.
func alive(id proc.Identity) bool {
	got, err := proc.Lookup(id.PID)
	if err != nil || got.Start != id.Start {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(id.PID) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// A host name that does not exist fails at once, once, saying the name as
// typed: no reconnect loop, nothing blamed on the server.
func TestUnresolvableHostFailsAtOnce(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{Destination: "hôst.invalid", ConfigFile: "/dev/null"})
	start := time.Now()
	err := h.Connect(ctxFor(t))
	if err != nil && strings.Contains(err.Error(), "Temporary failure") {
		t.Skipf("this machine's resolver cannot answer at all: %v", err)
	}
	if !errors.Is(err, ssh.ErrUnresolvable) || !ssh.Permanent(err) {
		t.Fatalf("Connect: %v, want a permanent ErrUnresolvable", err)
	}
	if !strings.Contains(err.Error(), "hôst.invalid") {
		t.Errorf("the name is not shown as typed: %v", err)
	}
	if st := h.Status(); st.State != transport.Failed || st.Attempt > 1 {
		t.Errorf("state %+v after %s, want failed after one attempt", st, time.Since(start))
	}
}
