//go:build unix

package remotemux

import (
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/muxwire"
	"hermes-desktop/internal/waitfor"
)

// echoServer serves l: each connection gets back what it sent, prefixed.
func echoServer(t *testing.T, l net.Listener) {
	t.Cleanup(func() { l.Close() })
	go func() { // ends when l is closed
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { // ends at the connection's EOF
				defer c.Close()
				b, _ := io.ReadAll(c)
				_, _ = c.Write(append([]byte("echo:"), b...))
			}()
		}
	}()
}

// roundTrip dials q through the session, sends msg, half-closes and
// reads the answer.
func roundTrip(t *testing.T, s *server, q muxwire.Request, msg string) (string, muxwire.Reply) {
	t.Helper()
	st, rep := open(t, s.sess, q)
	if rep.Error != "" {
		return "", rep
	}
	if _, err := st.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	b, err := io.ReadAll(st)
	if err != nil {
		t.Fatalf("read through the dial: %v", err)
	}
	return string(b), rep
}

func TestDialTCP(t *testing.T) {
	s := startServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, l)
	port := l.Addr().(*net.TCPAddr).Port
	got, rep := roundTrip(t, s, muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetTCP, Port: port}, "hi")
	if rep.Error != "" || got != "echo:hi" {
		t.Fatalf("dial tcp = %q, %+v", got, rep)
	}
	if _, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetTCP, Port: 70000}); rep.Error == "" {
		t.Fatal("port 70000 dialled")
	}
}

// listenUnix serves an echo on a unix socket at path.
func listenUnix(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, l)
}

func TestDialUnixOnlyInsideTheStateDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	s := startServer(t)
	inside := filepath.Join(home, StateDir, "sessions", "a.sock")
	outside := filepath.Join(home, "other", "b.sock")
	listenUnix(t, inside)
	listenUnix(t, outside)
	if err := os.Symlink(filepath.Join(home, "other"), filepath.Join(home, StateDir, "link")); err != nil {
		t.Fatal(err)
	}
	unix := func(p string) muxwire.Request {
		return muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetUnix, Path: p}
	}
	for _, p := range []string{inside, StateDir + "/sessions/a.sock"} {
		if got, rep := roundTrip(t, s, unix(p), "in"); rep.Error != "" || got != "echo:in" {
			t.Fatalf("dial unix %s = %q, %+v", p, got, rep)
		}
	}
	for _, p := range []string{outside, "other/b.sock",
		filepath.Join(home, StateDir, "link", "b.sock"),        // through a symlink
		home + "/" + StateDir + "/sessions/../../other/b.sock", // up and out
		home + "/" + StateDir + "/sessions/../sessions/a.sock", // any ".." (Join would clean it)
		filepath.Join(home, StateDir), ""} {
		_, rep := open(t, s.sess, unix(p))
		if rep.Error == "" {
			t.Fatalf("dial unix %q was served", p)
		}
		if p != "" && !strings.Contains(rep.Error, StateDir) {
			t.Errorf("dial unix %q: %s: want the reason", p, rep.Error)
		}
	}
}

// TestSessionEndLeavesNoGoroutine: a finished command leaves no goroutine
// while the session goes on, even with its stream still open on the app's
// side; at the session's end a dial whose target holds its connection
// open is closed, and every goroutine the session started ends.
func TestSessionEndLeavesNoGoroutine(t *testing.T) {
	// os/signal's own loop starts at the first Notify and stays: start it
	// before counting.
	warm := make(chan os.Signal, 1)
	signal.Notify(warm, syscall.SIGWINCH)
	signal.Stop(warm)
	base := runtime.NumGoroutine()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release, idle := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() { // ends once released: holds its connection open until then
		c, err := l.Accept()
		l.Close()
		if err == nil {
			b := make([]byte, 1)
			if _, err = io.ReadFull(c, b); err == nil {
				_, err = c.Write(b) // the dial's pipe runs both ways
			}
			if _, err := io.ReadFull(c, b); err == nil {
				close(idle) // the core's write of the echo is long done: both copies wait on reads
			}
			_, _ = io.Copy(io.Discard, c)
			<-release
			c.Close()
		}
		held <- err
	}()
	s := startServer(t)
	if _, err := s.sess.Ping(); err != nil { // the server's session runs: its goroutines count
		t.Fatal(err)
	}
	serving := runtime.NumGoroutine()
	if r := run(t, s.sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: 60_000, Argv: []string{"true"}}); r.exit.Code != 0 {
		t.Fatalf("exec = %+v", r)
	}
	countDown(t, serving, "a finished command's goroutines to end (its stream still open)")
	st, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetTCP, Port: l.Addr().(*net.TCPAddr).Port})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	b := []byte("x")
	if _, err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(st, b); err != nil {
		t.Fatalf("through the dial: %v", err)
	}
	if _, err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	within(t, "the second byte at the target", func() struct{} { <-idle; return struct{}{} })
	s.sess.Close()
	s.toCore.Close()
	code := within(t, "MuxMain's return (the dial's target holds on)", func() int { return <-s.done })
	s.done <- code
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	countDown(t, base, "the session's goroutines to end")
}

// countDown waits until no more than n goroutines run, else fails with
// their stacks.
func countDown(t *testing.T, n int, what string) {
	t.Helper()
	if !waitfor.Try(30*time.Second, func() bool { return runtime.NumGoroutine() <= n }) {
		buf := make([]byte, 1<<20)
		t.Fatalf("%s: %d goroutines, want %d:\n%s", what, runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
	}
}
