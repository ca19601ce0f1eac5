package ssh_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/ssh"
	"hermes-desktop/backend/transport"
	"hermes-desktop/contract/muxwire"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/waitfor"
)

// servePort is a "remote" service (the remote is this machine) that
// greets each connection with its name; its port is returned.
func servePort(t *testing.T, name string) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() { // ends when l closes
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, name+"\n")
			_ = c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// greeting reads the first line through 127.0.0.1:port.
func greeting(port int) (string, error) {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 10*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// threeBackends does over h what three remote backends do: a reap-like
// Run, a channel (a lifeline both ways), and a forward to its port, each
// three times.
func threeBackends(t *testing.T, h *ssh.Host) {
	t.Helper()
	ctx := ctxFor(t)
	for i := range 3 {
		name := fmt.Sprintf("backend-%d", i)
		out, err := h.Run(ctx, 10*time.Second, nil, "echo", name)
		if err != nil || strings.TrimSpace(string(out)) != name {
			t.Fatalf("Run %d: got %q, %v", i, out, err)
		}
		ch, err := h.Start(ctx, "cat")
		if err != nil {
			t.Fatalf("Start %d: %v", i, err)
		}
		if _, err := io.WriteString(ch.Stdin, name+"\n"); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		line, err := bufio.NewReader(ch.Stdout).ReadString('\n')
		if err != nil || line != name+"\n" {
			t.Fatalf("channel %d: got %q, %v", i, line, err)
		}
		_ = ch.Stdin.Close()
		if err := ch.Wait(); err != nil {
			t.Fatalf("channel %d Wait: %v", i, err)
		}
		local := freePort(t)
		if err := h.Forward(ctx, local, transport.Target{Port: servePort(t, name)}); err != nil {
			t.Fatalf("Forward %d: %v", i, err)
		}
		if got, err := greeting(local); got != name {
			t.Fatalf("through forward %d: got %q, %v, want %q", i, got, err, name)
		}
	}
}

// One authentication, one connection for three backends' worth of
// commands, channels and forwards, whatever ssh multiplexing the user's
// config asks for or forbids (Windows' ssh.exe has none at all), and
// whatever it says our session should do that would break it: a
// RemoteCommand replacing ours, a TTY mangling our bytes, agent and X11
// forwarding, a forward of its own.
func TestOneSessionWithoutSSHMultiplexing(t *testing.T) {
	for name, extra := range map[string]string{
		"as configured":   "",
		"no multiplexing": "Host *\n\tControlMaster no\n\tControlPath none\n",
		"hostile config": "Host *\n\tControlMaster auto\n\tControlPath /nonexistent/cm-%C\n\tControlPersist yes\n" +
			"\tRemoteCommand echo broken\n\tRequestTTY force\n\tForwardAgent yes\n\tForwardX11 yes\n" +
			"\tLocalForward 127.0.0.1:1 127.0.0.1:1\n\tPermitLocalCommand yes\n\tLocalCommand echo broken\n",
	} {
		t.Run(name, func(t *testing.T) {
			srv := sshtest.Start(t)
			base, err := os.ReadFile(srv.ClientConfig)
			if err != nil {
				t.Fatal(err)
			}
			// ssh takes the first value it reads: these lines come first.
			conf := filepath.Join(srv.Dir, "ssh_config_user")
			if err := os.WriteFile(conf, append([]byte(extra), base...), 0o600); err != nil {
				t.Fatal(err)
			}
			h := newHost(t, srv, ssh.Options{ConfigFile: conf})
			threeBackends(t, h)
			if n, c := srv.Authentications(), srv.Connections(); n != 1 || c != 1 {
				t.Errorf("authentications, connections: got %d, %d, want 1, 1\n%s", n, c, srv.LogText())
			}
		})
	}
}

// A host reached through a ProxyCommand (a bastion: `ssh -W %h:%p jump`)
// works as a direct one: the session is a stdio stream either way.
func TestProxyCommandHost(t *testing.T) {
	jump := sshtest.Start(t)
	srv := sshtest.Start(t)
	conf := filepath.Join(srv.Dir, "ssh_config_proxied")
	srv.WriteProxiedClientConfig(t, conf, jump)
	h := newHost(t, srv, ssh.Options{ConfigFile: conf})
	threeBackends(t, h)
	if n, j := srv.Authentications(), jump.Authentications(); n != 1 || j != 1 {
		t.Errorf("authentications on the host, on the jump host: got %d, %d, want 1, 1", n, j)
	}
	if err := h.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// The session's ssh killed (a crash, the OOM killer): the Host
// reconnects, and a forward made before serves its next connections
// over the new session.
func TestForwardServedAfterReconnect(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv, ssh.Options{MinBackoff: 100 * time.Millisecond})
	ctx := ctxFor(t)
	local := freePort(t)
	if err := h.Forward(ctx, local, transport.Target{Port: servePort(t, "far")}); err != nil {
		t.Fatalf("Forward: %v", err)
	}
	if got, err := greeting(local); got != "far" {
		t.Fatalf("through the forward: got %q, %v", got, err)
	}
	sessions := descendantsNamed(t, os.Getpid(), "ssh")
	if len(sessions) != 1 {
		t.Fatalf("ssh descendants of the test: got %v, want one session", sessions)
	}
	if err := syscall.Kill(sessions[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitfor.Try(30*time.Second, func() bool { return srv.Authentications() == 2 && h.Status().State == transport.Connected })
	if got, err := greeting(local); got != "far" {
		t.Errorf("through the forward after the reconnect: got %q, %v", got, err)
	}
	if n := srv.Authentications(); n != 2 {
		t.Errorf("authentications: got %d, want 2 (one per session)", n)
	}
}

// The bootstrap puts the core on a host that has none, within the one
// session (one authentication), private to the user.
func TestBootstrapUploadsTheCore(t *testing.T) {
	srv := sshtest.Start(t)
	boot := newBoot(t)
	h := newHost(t, srv, ssh.Options{Boot: boot})
	out, err := h.Run(ctxFor(t), 10*time.Second, nil, muxwire.Core, "version")
	if err != nil || !strings.HasPrefix(string(out), "hermes-desktop ") {
		t.Fatalf("the core's version over the session: got %q, %v", out, err)
	}
	in, ok := boot.Installed()
	if !ok || !in.Uploaded {
		t.Fatalf("installed: got %+v, %v, want an upload", in, ok)
	}
	fi, err := os.Stat(filepath.Join(srv.Home, in.Path))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the core on the host: %v, %v; want it there, 0700", fi, err)
	}
	if n := srv.Authentications(); n != 1 {
		t.Errorf("authentications: got %d, want 1", n)
	}
}

// A home its group may write is refused at once, for good: nothing is
// uploaded or run, and the Host does not retry.
func TestBootstrapRefusesUnsafeHome(t *testing.T) {
	srv := sshtest.Start(t)
	if err := os.Chmod(srv.Home, 0o770); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, srv, ssh.Options{MinBackoff: 10 * time.Millisecond})
	err := h.Connect(ctxFor(t))
	if !errors.Is(err, remotecore.ErrUnsafeHome) || !ssh.Permanent(err) {
		t.Fatalf("Connect: got %v, want a permanent ErrUnsafeHome", err)
	}
	if st := h.Status(); st.State != transport.Failed || st.Attempt > 1 {
		t.Errorf("status %+v, want failed after one attempt", st)
	}
	if _, err := os.Stat(filepath.Join(srv.Home, ".hermes-desktop")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("~/.hermes-desktop: %v, want nothing written", err)
	}
}
