//go:build unix

package remotewd

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/platform/proc"
)

// The claim tests run the real remote watchdog (hermes-desktop
// watchdog-remote) as a child, with the built-in backend behind it, its
// lifeline a pipe the test holds, and HOME a temporary directory: the
// claim socket is a real unix socket there.

// wdRun is one remote watchdog the test started.
type wdRun struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string // its stdout, line by line
	stderr  *testbin.Buffer
	exited  chan struct{}
	home    string
	id      string // the ownership id
	secret  string // the session secret sent
	backend RemoteBackend
}

// startWatchdog starts the remote watchdog with the heartbeat grace given,
// sends token, secret and start, and returns once its backend runs.
func startWatchdog(t *testing.T, grace time.Duration) *wdRun {
	t.Helper()
	bin := testbin.Path(t)
	id, err := hermes.NewOwnershipID()
	must(t, err)
	nonce, err := hermes.NewSpawnNonce()
	must(t, err)
	secret, err := NewSecret()
	must(t, err)
	// A short home: a socket's path must fit in sun_path (108 bytes), and
	// t.TempDir's names are long.
	home, err := os.MkdirTemp("", "rwd")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(home) })
	w := &wdRun{t: t, home: home, id: id, secret: secret, lines: make(chan string, 256), exited: make(chan struct{}), stderr: &testbin.Buffer{}}
	o := RemoteOptions{OwnershipID: id, SpawnNonce: nonce, Token: TokenNone, HeartbeatGrace: grace, Grace: time.Second, Argv: []string{bin, "serve", "--port", "0"}}
	w.cmd = exec.Command(bin, append([]string{RemoteSubcommand}, o.Args()...)...)
	w.cmd.Env = append(os.Environ(), "HOME="+w.home)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w.cmd.Stderr = w.stderr
	w.stdin, err = w.cmd.StdinPipe()
	must(t, err)
	out, err := w.cmd.StdoutPipe()
	must(t, err)
	must(t, w.cmd.Start())
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	go func() { _ = w.cmd.Wait(); close(w.exited) }()
	t.Cleanup(func() {
		// Only what the test started: the watchdog leads its own group,
		// its backend is in it.
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		<-w.exited
		if t.Failed() {
			t.Logf("watchdog's log:\n%s", w.stderr.String())
		}
	})
	w.send(TagToken + " " + strings.Repeat("a", hermes.SSHTokenLen))
	w.send(TagSecret + " " + secret)
	w.send(TagStart)
	next(t, w.lines, TagBackend, &w.backend)
	if w.backend.ClaimSocket != ClaimSocket(w.home, id) {
		t.Fatalf("claim socket: got %q, want %q", w.backend.ClaimSocket, ClaimSocket(w.home, id))
	}
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (w *wdRun) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.stdin, line+"\n"); err != nil {
		w.t.Fatalf("write %q: %v", line, err)
	}
}

// beat sends a ping on the channel and waits for its pong.
func (w *wdRun) beat() {
	w.t.Helper()
	w.send(FormatPing(7))
	awaitLine(w.t, w.lines, TagPong+" 7")
}

// awaitLine waits for the line want.
func awaitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the lifeline ended before %q", want)
			}
			if l == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %q", want)
		}
	}
}

// waitExit waits for the watchdog to end; it fails the test after d.
func (w *wdRun) waitExit(d time.Duration, what string) {
	w.t.Helper()
	select {
	case <-w.exited:
	case <-time.After(d):
		w.t.Fatalf("the watchdog still runs %s after %s", what, d)
	}
}

// claimConn dials the claim socket and claims with secret; it returns the
// answer line and the connection's lines after it.
func (w *wdRun) claim(secret string) (answer string, conn net.Conn, lines chan string) {
	w.t.Helper()
	c, err := net.Dial("unix", w.backend.ClaimSocket)
	if err != nil {
		w.t.Fatalf("dial the claim socket: %v", err)
	}
	w.t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, TagClaim+" "+secret+"\n"); err != nil {
		w.t.Fatalf("claim: %v", err)
	}
	lines = make(chan string, 256)
	first := make(chan string, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(c)
		sc.Buffer(nil, 1<<20)
		if !sc.Scan() {
			first <- ""
			return
		}
		first <- sc.Text()
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	select {
	case answer = <-first:
	case <-time.After(10 * time.Second):
		w.t.Fatal("no answer to the claim")
	}
	return answer, c, lines
}

// claimed checks a claim's answer: the same backend.
func (w *wdRun) claimed(answer string) {
	w.t.Helper()
	tag, payload, _ := strings.Cut(answer, " ")
	var got RemoteClaimed
	if tag != TagClaimed || json.Unmarshal([]byte(payload), &got) != nil {
		w.t.Fatalf("claim answered %q, want %s {json}", answer, TagClaimed)
	}
	if got.Backend != w.backend.Backend {
		w.t.Fatalf("claimed backend %v, want the same one, %v", got.Backend, w.backend.Backend)
	}
	if alive, err := proc.Alive(w.backend.Backend); !alive || err != nil {
		w.t.Fatalf("the backend %v is not alive after the claim (%v)", w.backend.Backend, err)
	}
}

// nothingLeft checks that the backend and every file of the run are gone.
func (w *wdRun) nothingLeft() {
	w.t.Helper()
	if alive, _ := proc.Alive(w.backend.Backend); alive {
		w.t.Errorf("backend %v still alive", w.backend.Backend)
	}
	for _, p := range []string{w.backend.ClaimSocket, filepath.Join(w.home, RemoteSessionsDir, w.id+".json"), w.backend.LockDir} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			w.t.Errorf("%s is left (%v)", p, err)
		}
	}
	if c, err := net.Dial("unix", w.backend.ClaimSocket); err == nil {
		c.Close()
		w.t.Error("the claim socket still answers")
	}
}

// quietEOF beats once, stays silent for longer than two beats (the
// connection went quiet), then closes the channel.
func (w *wdRun) quietEOF(grace time.Duration) {
	w.beat()
	time.Sleep(2*BeatEvery(grace) + time.Second)
	w.stdin.Close()
}

// A channel that goes quiet and then closes keeps the tree for the grace:
// a claim with the session secret gets the same backend, and the claim's
// connection is the lifeline from then on (pings answered, stop obeyed).
func TestQuietEOFThenClaimKeepsTheBackend(t *testing.T) {
	const grace = 8 * time.Second
	w := startWatchdog(t, grace)
	w.quietEOF(grace)
	answer, conn, lines := w.claim(w.secret)
	w.claimed(answer)
	if _, err := io.WriteString(conn, FormatPing(9)+"\n"); err != nil {
		t.Fatal(err)
	}
	awaitLine(t, lines, TagPong+" 9")
	if _, err := io.WriteString(conn, TagStop+"\n"); err != nil {
		t.Fatal(err)
	}
	var ex RemoteExit
	next(t, lines, TagExit, &ex)
	if ex.Why != "the app asked it to stop" {
		t.Errorf("exit: got %q, want the stop asked on the claimed lifeline", ex.Why)
	}
	w.waitExit(10*time.Second, "after stop")
	w.nothingLeft()
}

// Past the grace, nothing waits: the watchdog tore the tree down, a claim
// finds no socket, nothing of the run is left.
func TestQuietEOFWithoutClaimEndsAfterGrace(t *testing.T) {
	const grace = 3 * time.Second
	w := startWatchdog(t, grace)
	w.quietEOF(grace)
	w.waitExit(grace+15*time.Second, "past the grace")
	if log := w.stderr.String(); !strings.Contains(log, "no claim came") {
		t.Errorf("the watchdog's log does not say it waited for a claim:\n%s", log)
	}
	w.nothingLeft()
}

// An EOF right after a line is the app's doing (it quit, crashed or was
// killed): the tree goes at once, long before the grace.
func TestFreshEOFTearsDownAtOnce(t *testing.T) {
	const grace = 2 * time.Minute
	w := startWatchdog(t, grace)
	w.beat()
	w.stdin.Close()
	var ex RemoteExit
	next(t, w.lines, TagExit, &ex)
	if ex.Why != "the channel to the app closed" {
		t.Errorf("exit: got %q, want the channel's close", ex.Why)
	}
	w.waitExit(30*time.Second, "after a fresh EOF")
	w.nothingLeft()
}

// A claim with a wrong secret is refused and closed; nothing is
// signalled, the channel stays the lifeline.
func TestWrongSecretRefused(t *testing.T) {
	const grace = 8 * time.Second
	w := startWatchdog(t, grace)
	wrong, err := NewSecret()
	must(t, err)
	answer, _, lines := w.claim(wrong)
	if answer != TagRefused+" wrong secret" {
		t.Fatalf("claim with a wrong secret: got %q, want %q", answer, TagRefused+" wrong secret")
	}
	if _, open := <-lines; open {
		t.Error("the refused connection was not closed")
	}
	w.beat()
	if alive, err := proc.Alive(w.backend.Backend); !alive || err != nil {
		t.Errorf("the backend %v is not alive after a refused claim (%v)", w.backend.Backend, err)
	}
	if !strings.Contains(w.stderr.String(), "claim refused") {
		t.Errorf("the refusal is not in the watchdog's log:\n%s", w.stderr.String())
	}
}

// A handover makes the EOF that follows (right after a line) hold for the
// window: a claim with the one-time secret gets the same backend, once.
func TestHandoverThenClaimKeepsTheBackend(t *testing.T) {
	const grace = 2 * time.Minute
	w := startWatchdog(t, grace)
	once, err := NewSecret()
	must(t, err)
	w.send(FormatHandover(once, 30*time.Second))
	w.beat()
	w.stdin.Close()
	answer, _, _ := w.claim(once)
	w.claimed(answer)
	if again, _, _ := w.claim(once); again != TagRefused+" wrong secret" {
		t.Errorf("a second claim with the one-time secret: got %q, want it refused", again)
	}
}

// A handover that no successor claims ends with its window.
func TestHandoverWithoutClaimEndsAfterWindow(t *testing.T) {
	const grace = 2 * time.Minute
	w := startWatchdog(t, grace)
	once, err := NewSecret()
	must(t, err)
	w.send(FormatHandover(once, 2*time.Second))
	w.beat()
	w.stdin.Close()
	w.waitExit(30*time.Second, "past the handover's window")
	if log := w.stderr.String(); !strings.Contains(log, "no successor claimed it") {
		t.Errorf("the watchdog's log does not say it waited for the successor:\n%s", log)
	}
	w.nothingLeft()
}

// A claim socket left by a dead watchdog of ours is replaced; one that a
// process listens on, or a file that is not a socket, is left alone.
func TestListenClaimReplacesOnlyDeadSockets(t *testing.T) {
	dir, err := os.MkdirTemp("", "rwd")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	dead := filepath.Join(dir, "dead.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: dead, Net: "unix"})
	must(t, err)
	ln.SetUnlinkOnClose(false)
	ln.Close() // the file stays; nothing listens: a watchdog that died
	l2, err := listenClaim(dead)
	if err != nil {
		t.Fatalf("a dead socket of ours: got %v, want it replaced", err)
	}
	if fi, err := os.Stat(dead); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the new socket: got %v, %v; want mode 0600", fi.Mode(), err)
	}
	if _, err := listenClaim(dead); err == nil {
		t.Error("a socket a process listens on: got it replaced, want it left alone")
	}
	l2.Close()
	plain := filepath.Join(dir, "plain.sock")
	must(t, os.WriteFile(plain, []byte("x"), 0o600))
	if _, err := listenClaim(plain); err == nil {
		t.Error("a regular file: got it replaced, want it left alone")
	}
	if b, err := os.ReadFile(plain); err != nil || string(b) != "x" {
		t.Errorf("the regular file: got %q, %v; want it untouched", b, err)
	}
}
