//go:build unix

package remotemux

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/contract/muxwire"
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
