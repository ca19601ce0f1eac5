//go:build unix

package remotemux

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/yamux"

	"hermes-desktop/contract/muxwire"
)

// Helper modes of the test binary, chosen by its first argument (checked
// before the testing flags are parsed).
const (
	helperServe = "remotemux-test-serve" // run MuxMain on stdin/stdout: a real core
	helperEcho  = "remotemux-test-echo"  // print "core ARGS" and exit 7: what @core runs
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case helperServe:
			os.Exit(MuxMain("test", os.Stdin, os.Stdout, os.Stderr))
		case helperEcho:
			fmt.Println("core " + strings.Join(os.Args[2:], " "))
			os.Exit(7)
		}
	}
	os.Exit(m.Run())
}

// server is MuxMain run in this process over two pipes, with a yamux
// client on the other end.
type server struct {
	sess   *yamux.Session
	toCore *io.PipeWriter // the session's stdin, as ssh would feed it
	done   chan int       // MuxMain's code, once it returned
	stderr *lockedBuffer
}

// startServer runs MuxMain and connects a client after its Banner; the
// cleanup ends the session and waits for MuxMain.
func startServer(t testing.TB) *server {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &server{toCore: inW, done: make(chan int, 1), stderr: &lockedBuffer{}}
	go func() { s.done <- MuxMain("test", inR, outW, s.stderr) }()
	sess, err := connect(outR, inW)
	if err != nil {
		t.Fatal(err)
	}
	s.sess = sess
	t.Cleanup(func() {
		sess.Close()
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Errorf("MuxMain did not return after the session's end; stderr:\n%s", s.stderr.String())
		}
	})
	return s
}

// connect reads the Banner line from r and starts a yamux client over r
// and w.
func connect(r io.ReadCloser, w io.WriteCloser) (*yamux.Session, error) {
	line, err := muxwire.ReadLineBytes(r, muxwire.MaxLine)
	if err != nil {
		return nil, fmt.Errorf("banner: %w", err)
	}
	if string(line) != muxwire.Banner {
		return nil, fmt.Errorf("banner: got %q", line)
	}
	cfg := yamux.DefaultConfig()
	cfg.LogOutput = io.Discard
	return yamux.Client(pipeConn{r, w}, cfg)
}

type pipeConn struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipeConn) Close() error {
	return errors.Join(p.ReadCloser.Close(), p.WriteCloser.Close())
}

// result is what an OpExec stream returned.
type result struct {
	reply          muxwire.Reply
	stdout, stderr string
	exit           muxwire.Exit
	err            error
}

// open opens a stream and sends q; it returns the stream and its Reply.
func open(t testing.TB, sess *yamux.Session, q muxwire.Request) (*yamux.Stream, muxwire.Reply) {
	t.Helper()
	st, err := sess.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := muxwire.WriteRequest(st, q); err != nil {
		t.Fatal(err)
	}
	rep, err := muxwire.ReadReply(st)
	if err != nil {
		t.Fatalf("reply to %+v: %v", q, err)
	}
	if rep.PID > 0 {
		t.Cleanup(func() {
			if t.Failed() { // a server that failed to end it: the group is the test's own
				_ = syscall.Kill(-rep.PID, syscall.SIGKILL)
			}
		})
	}
	return st, rep
}

// within returns what f returns, or fails the test when it takes over
// 30 s (the server failed to end a command).
func within[T any](t testing.TB, what string, f func() T) T {
	t.Helper()
	c := make(chan T, 1)
	go func() { c <- f() }() // ends with f: the stream's end at the latest
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: still waiting after 30 s", what)
		panic("unreachable")
	}
}

// collect reads an OpExec stream's frames up to its Exit; onOut, when
// not nil, sees each stdout frame as it comes.
func collect(st io.Reader, onOut func(string)) result {
	var r result
	var out, errb strings.Builder
	var buf []byte
	for {
		kind, p, err := muxwire.ReadFrame(st, buf)
		if err != nil {
			r.err = err
			break
		}
		switch kind {
		case muxwire.FrameStdout:
			out.Write(p)
			if onOut != nil {
				onOut(string(p))
			}
		case muxwire.FrameStderr:
			errb.Write(p)
		case muxwire.FrameExit:
			r.err = json.Unmarshal(p, &r.exit)
			r.stdout, r.stderr = out.String(), errb.String()
			return r
		}
	}
	r.stdout, r.stderr = out.String(), errb.String()
	return r
}

// run execs q to its end with no stdin.
func run(t testing.TB, sess *yamux.Session, q muxwire.Request) result {
	t.Helper()
	st, rep := open(t, sess, q)
	if rep.Error != "" {
		return result{reply: rep}
	}
	if err := muxwire.WriteFrame(st, muxwire.FrameStdin, nil); err != nil {
		t.Fatal(err)
	}
	r := collect(st, nil)
	r.reply = rep
	return r
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
