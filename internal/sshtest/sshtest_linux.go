package sshtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// SSHD is Debian's OpenSSH server.
const SSHD = "/usr/sbin/sshd"

// Alias is the Host name the client config defines for the server.
const Alias = "sshtest"

// Server is one running sshd. Its per-connection sshd processes are the
// listener's descendants (their environ is not readable: setproctitle
// writes over it); the sessions' commands carry Tag through SetEnv, even
// when they leave the tree (setsid, double fork).
type Server struct {
	Dir          string // config, keys, log; the test's temp dir
	Port         int
	User         string
	Log          string // sshd's log (-E), LogLevel VERBOSE
	ClientConfig string // an ssh_config defining Alias; pass as ssh -F
	KnownHosts   string // holds the server's host key
	Identity     string // the client's private key
	HostKey      string // the server's public host key file
	// Home is HOME in the server's sessions, a fresh directory (0700)
	// under Dir instead of the passwd entry's home (sshd_config SetEnv
	// overrides it), so what a test writes on the "remote" goes with the
	// test, not into the real ~ of the test's user.
	Home string
	Tag  string
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts sshd and registers its stop; it skips the test when
// sshd or the client tools are missing.
func Start(t testing.TB) *Server {
	t.Helper()
	for _, bin := range []string{SSHD, "ssh", "ssh-keygen", "ssh-keyscan"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("no %s (apt-get install openssh-server openssh-client, or make test): %v", bin, err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("current user: %v", err)
	}
	s := &Server{Dir: shortTempDir(t), User: u.Username, Tag: testbin.NewTag(), done: make(chan struct{})}
	s.Log = filepath.Join(s.Dir, "sshd.log")
	s.Identity = filepath.Join(s.Dir, "id_ed25519")
	s.KnownHosts = filepath.Join(s.Dir, "known_hosts")
	s.ClientConfig = filepath.Join(s.Dir, "ssh_config")
	s.HostKey = filepath.Join(s.Dir, "host_ed25519.pub")
	s.Home = filepath.Join(s.Dir, "home")
	if err := os.Mkdir(s.Home, 0o700); err != nil {
		t.Fatalf("remote home: %v", err)
	}
	keygen(t, strings.TrimSuffix(s.HostKey, ".pub"))
	keygen(t, s.Identity)
	copyFile(t, s.Identity+".pub", filepath.Join(s.Dir, "authorized_keys"))
	if os.Geteuid() == 0 {
		// sshd as root insists on its privilege separation directory,
		// which Debian creates only when it starts the system service.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Skipf("sshd as root needs /run/sshd: %v", err)
		}
	}
	s.start(t)
	t.Cleanup(func() { s.stop(t) })
	s.writeKnownHosts(t)
	s.WriteClientConfig(t, s.ClientConfig, s.KnownHosts)
	return s
}

// shortTempDir is a temp dir with a short path: control sockets under it
// must fit sun_path.
func shortTempDir(t testing.TB) string {
	d, err := os.MkdirTemp("", "sshd-")
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

func keygen(t testing.TB, path string) {
	t.Helper()
	if out, err := exec.Command("ssh-keygen", "-q", "-N", "", "-t", "ed25519", "-C", "sshtest", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen %s: %v: %s", path, err, out)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o600)
	}
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
}

// config is sshd_config: only public keys, only ours, only loopback.
// StrictModes off: the temp dir's parents (/tmp) are world-writable.
func (s *Server) config() string {
	return fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %s
AuthorizedKeysFile %s
AllowUsers %s
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
PidFile none
LogLevel VERBOSE
AllowTcpForwarding local
SetEnv %s HOME=%s
`, s.Port, strings.TrimSuffix(s.HostKey, ".pub"), filepath.Join(s.Dir, "authorized_keys"), s.User, testbin.Env(s.Tag), s.Home)
}

// start runs sshd on a free port, retrying if another process took the
// port between our probe and sshd's bind.
func (s *Server) start(t testing.TB) {
	t.Helper()
	for try := 0; try < 5; try++ {
		s.Port = freePort(t)
		conf := filepath.Join(s.Dir, "sshd_config")
		if err := os.WriteFile(conf, []byte(s.config()), 0o600); err != nil {
			t.Fatalf("write sshd_config: %v", err)
		}
		_ = os.Remove(s.Log)
		cmd := exec.Command(SSHD, "-D", "-E", s.Log, "-f", conf)
		cmd.Env = append(os.Environ(), testbin.Env(s.Tag))
		if err := cmd.Start(); err != nil {
			t.Fatalf("start sshd: %v", err)
		}
		s.cmd, s.done = cmd, make(chan struct{})
		go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(s.done) // ends at sshd's exit
		if s.waitListening() {
			return
		}
		_ = cmd.Process.Kill()
		<-s.done
	}
	t.Fatalf("sshd did not start listening; its log:\n%s", s.LogText())
}

// waitListening reports whether sshd says it listens within 10 s; it stops
// early, false, if sshd exits first.
func (s *Server) waitListening() bool {
	listening := false
	waitfor.Try(10*time.Second, func() bool {
		if listening = strings.Contains(s.LogText(), "Server listening on"); listening {
			return true
		}
		select {
		case <-s.done:
			return true // exited: no use waiting on
		default:
			return false
		}
	})
	return listening
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *Server) writeKnownHosts(t testing.TB) {
	t.Helper()
	pub, err := os.ReadFile(s.HostKey)
	if err != nil {
		t.Fatalf("host key: %v", err)
	}
	f := strings.Fields(string(pub))
	line := fmt.Sprintf("[127.0.0.1]:%d %s %s\n", s.Port, f[0], f[1])
	if err := os.WriteFile(s.KnownHosts, []byte(line), 0o600); err != nil {
		t.Fatalf("known_hosts: %v", err)
	}
}

// WriteClientConfig writes an ssh_config at path that defines Alias for
// this server with knownHosts as its known_hosts file. The client reads it
// with -F: ssh(1) reads ~/.ssh of the passwd entry, never $HOME.
func (s *Server) WriteClientConfig(t testing.TB, path, knownHosts string) {
	t.Helper()
	conf := fmt.Sprintf(`Host %s
	HostName 127.0.0.1
	Port %d
	User %s
	IdentityFile %s
	IdentitiesOnly yes
	IdentityAgent none
	UserKnownHostsFile %s
	GlobalKnownHostsFile /dev/null
`, Alias, s.Port, s.User, s.Identity, knownHosts)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatalf("ssh_config: %v", err)
	}
}

// LogText returns sshd's log so far.
func (s *Server) LogText() string {
	b, _ := os.ReadFile(s.Log)
	return string(b)
}

// Count returns how many log lines contain substr.
func (s *Server) Count(substr string) int {
	return strings.Count(s.LogText(), substr)
}

// Authentications counts successful authentications.
func (s *Server) Authentications() int { return s.Count("Accepted publickey") }

// Connections counts TCP connections sshd accepted.
func (s *Server) Connections() int { return s.Count("Connection from ") }

// Proc is a process on the "remote".
type Proc struct {
	PID  int
	Args string
}

// String is "PID args".
func (p Proc) String() string { return strconv.Itoa(p.PID) + " " + p.Args }

// Processes lists every live process the server started (sessions,
// their commands, and per-connection sshd processes), without the
// listener itself.
func (s *Server) Processes() []Proc {
	var out []Proc
	for _, pid := range s.pids() {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		out = append(out, Proc{pid, strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))})
	}
	return out
}

// pids are the listener's descendants and the tagged processes.
func (s *Server) pids() []int {
	seen := map[int]bool{}
	var out []int
	select {
	case <-s.done: // the listener is gone and its PID may be reused
	default:
		kids, _ := proc.DescendantsOf(s.cmd.Process.Pid)
		for _, p := range kids {
			seen[p.PID] = true
			out = append(out, p.PID)
		}
	}
	for _, pid := range testbin.Tagged(s.Tag) {
		if !seen[pid] && pid != s.cmd.Process.Pid {
			out = append(out, pid)
		}
	}
	return out
}

// WaitClean waits up to d for the server to have no process but its
// listener (no session, no command) and returns what is still there.
func (s *Server) WaitClean(d time.Duration) []Proc {
	var left []Proc
	waitfor.Try(d, func() bool { left = s.Processes(); return len(left) == 0 })
	return left
}

// StopAccepting stops the listener (SIGSTOP): new connections wait
// unanswered, as to a host that is down, while the sessions already there
// go on (each is its own process). ResumeAccepting undoes it; the test's
// cleanup does too, so that the listener can be stopped.
func (s *Server) StopAccepting(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("stop sshd's listener: %v", err)
	}
	t.Cleanup(func() { _ = s.cmd.Process.Signal(syscall.SIGCONT) })
}

// ResumeAccepting lets the listener accept again (SIGCONT).
func (s *Server) ResumeAccepting(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("resume sshd's listener: %v", err)
	}
}

// Kill SIGKILLs the listener and every session, as a crashed server or a
// rebooted host would look to a client.
func (s *Server) Kill() {
	s.killAll()
}

// killAll SIGKILLs the listener, then what it started, as seen just before:
// the per-connection processes by PID (the listener's descendants a moment
// ago), the sessions' commands by tag (random, in their environment from
// birth, so no other process carries it).
func (s *Server) killAll() {
	pids := s.pids()
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Kill() // our uncollected child until done closes
		<-s.done
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, pid := range testbin.Tagged(s.Tag) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// stop ends the server; a session or command still there is a leak of
// the test's and fails it (then it is killed).
func (s *Server) stop(t testing.TB) {
	if left := s.WaitClean(5 * time.Second); len(left) > 0 && !t.Failed() {
		t.Errorf("left on the remote after the test (killed now): %v", left)
	}
	s.killAll()
}

// WriteProxiedClientConfig writes an ssh_config at path that defines Alias
// for this server reached only through jump, an other Server, named "jump"
// there: `ProxyCommand ssh -F path -W %h:%p jump`, as a bastion is
// configured (cloudflared and the like are the same stdio stream).
func (s *Server) WriteProxiedClientConfig(t testing.TB, path string, jump *Server) {
	t.Helper()
	block := func(alias string, srv *Server) string {
		return fmt.Sprintf(`Host %s
	HostName 127.0.0.1
	Port %d
	User %s
	IdentityFile %s
	IdentitiesOnly yes
	IdentityAgent none
	UserKnownHostsFile %s
	GlobalKnownHostsFile /dev/null
`, alias, srv.Port, srv.User, srv.Identity, srv.KnownHosts)
	}
	conf := block(Alias, s) + fmt.Sprintf("\tProxyCommand ssh -F %s -W %%h:%%p jump\n", path) + block("jump", jump)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatalf("ssh_config: %v", err)
	}
}
