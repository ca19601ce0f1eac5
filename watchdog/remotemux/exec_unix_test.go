//go:build unix

package remotemux

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/muxwire"
	"hermes-desktop/internal/waitfor"
)

func TestExecRelaysOutputAndExit(t *testing.T) {
	s := startServer(t)
	r := run(t, s.sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: 60_000,
		Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}})
	if r.reply.Error != "" || r.reply.PID <= 0 || r.err != nil {
		t.Fatalf("exec: reply %+v, err %v", r.reply, r.err)
	}
	if r.stdout != "out\n" || r.stderr != "err\n" || r.exit.Code != 3 || r.exit.TimedOut {
		t.Fatalf("exec = %q %q %+v", r.stdout, r.stderr, r.exit)
	}
}

func TestExecStdinFrames(t *testing.T) {
	s := startServer(t)
	st, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec, Argv: []string{"tr", "a-z", "A-Z"}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	for _, p := range []string{"hello ", "mux"} {
		if err := muxwire.WriteFrame(st, muxwire.FrameStdin, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := muxwire.WriteFrame(st, muxwire.FrameStdin, nil); err != nil {
		t.Fatal(err)
	}
	if r := collect(st, nil); r.stdout != "HELLO MUX" || r.exit.Code != 0 {
		t.Fatalf("tr = %q %+v %v", r.stdout, r.exit, r.err)
	}
}

// gone reports whether pid no longer names a live process (a zombie
// counts as gone: it runs nothing).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}

// grandchild starts sh with a sleeping child of its own that prints its
// PID, and returns the stream, the sh PID and the sleep's PID.
func grandchild(t *testing.T, s *server, timeoutMS int64) (done chan result, pid, sleeper int) {
	t.Helper()
	st, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: timeoutMS,
		Argv: []string{"sh", "-c", "sleep 300 & echo $!; wait"}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	first := make(chan string, 1)
	done = make(chan result, 1)
	go func() { done <- collect(st, func(p string) { first <- p }) }()
	select {
	case p := <-first:
		sleeper, _ = strconv.Atoi(strings.TrimSpace(p))
	case r := <-done:
		t.Fatalf("ended before its child: %+v", r)
	}
	t.Cleanup(func() { _ = syscall.Kill(sleeper, syscall.SIGKILL) })
	return done, rep.PID, sleeper
}

func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	s := startServer(t)
	done, _, sleeper := grandchild(t, s, 500)
	r := within(t, "the timed-out command's exit", func() result { return <-done })
	if !r.exit.TimedOut || r.exit.Signal != "SIGTERM" {
		t.Fatalf("exit = %+v, %v: want timed out by SIGTERM", r.exit, r.err)
	}
	waitfor.Until(t, 10*time.Second, "the grandchild to die with its group", func() bool { return gone(sleeper) })
}

func TestFrameKillEndsTheCommand(t *testing.T) {
	s := startServer(t)
	st, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec, Argv: []string{"sh", "-c", "echo up; exec sleep 300"}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	up := make(chan string, 1)
	done := make(chan result, 1)
	go func() { done <- collect(st, func(p string) { up <- p }) }()
	<-up
	if err := muxwire.WriteFrame(st, muxwire.FrameKill, nil); err != nil {
		t.Fatal(err)
	}
	r := within(t, "the killed command's exit", func() result { return <-done })
	if r.exit.Signal != "SIGTERM" || r.exit.TimedOut {
		t.Fatalf("exit = %+v, %v: want SIGTERM", r.exit, r.err)
	}
}

// TestStreamEndClosesAChannelsStdin: a command without a timeout (a
// backend's channel) is not killed when its stream ends: its stdin closes,
// and it goes on to its own end.
func TestStreamEndClosesAChannelsStdin(t *testing.T) {
	s := startServer(t)
	st, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec,
		Argv: []string{"sh", "-c", "cat >/dev/null; echo saw-eof"}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	st.Close() // half-closes: the app's side ends, its output still comes
	r := within(t, "the channel's exit", func() result { return collect(st, nil) })
	if r.stdout != "saw-eof\n" || r.exit.Code != 0 || r.exit.Signal != "" {
		t.Fatalf("channel after its stream's end = %q %+v %v", r.stdout, r.exit, r.err)
	}
}

func TestStreamEndKillsATimedCommand(t *testing.T) {
	s := startServer(t)
	st, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: 600_000,
		Argv: []string{"sh", "-c", "cat >/dev/null; echo saw-eof"}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	st.Close()
	if r := within(t, "the timed command's exit", func() result { return collect(st, nil) }); r.exit.Signal != "SIGTERM" || r.stdout != "" {
		t.Fatalf("timed command after its stream's end = %q %+v %v", r.stdout, r.exit, r.err)
	}
}

// TestSessionEndKillsTimedAndWaitsForChannels: at the session's EOF a
// timed command is killed, a channel's stdin is closed, and MuxMain
// returns only once both are collected (the channel finishes its work
// after its EOF first).
func TestSessionEndKillsTimedAndWaitsForChannels(t *testing.T) {
	s := startServer(t)
	mark := filepath.Join(t.TempDir(), "finished")
	_, timed := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: 600_000, Argv: []string{"sleep", "300"}})
	_, channel := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec,
		Argv: []string{"sh", "-c", `cat >/dev/null; sleep 1; echo done >"$0"`, mark}})
	if timed.Error != "" || channel.Error != "" {
		t.Fatal(timed.Error, channel.Error)
	}
	t.Cleanup(func() { _ = syscall.Kill(timed.PID, syscall.SIGKILL) })
	s.toCore.Close() // the session's EOF, as when ssh goes
	select {
	case code := <-s.done:
		s.done <- code
	case <-time.After(30 * time.Second):
		t.Fatalf("MuxMain still serving 30 s after the session's EOF; stderr:\n%s", s.stderr.String())
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("MuxMain returned before the channel was done: %v", err)
	}
	if err := syscall.Kill(timed.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the timed command %d is still there (or uncollected): %v", timed.PID, err)
	}
}

func TestBadRequestGetsAnErrorAndTheSessionGoesOn(t *testing.T) {
	s := startServer(t)
	for _, line := range []string{"not json\n", `{"op":"nope"}` + "\n", `{"op":"exec"}` + "\n",
		`{"op":"exec","argv":["no-such-program-here"]}` + "\n"} {
		st, err := s.sess.OpenStream()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
		rep, err := muxwire.ReadReply(st)
		if err != nil || rep.Error == "" {
			t.Fatalf("%q: reply %+v, %v: want an Error", line, rep, err)
		}
		st.Close()
	}
	if r := run(t, s.sess, muxwire.Request{Op: muxwire.OpExec, Argv: []string{"echo", "still"}}); r.stdout != "still\n" {
		t.Fatalf("after bad requests: %+v", r)
	}
}

func TestCoreRunsTheExecutableItself(t *testing.T) {
	s := startServer(t)
	r := run(t, s.sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: 60_000,
		Argv: []string{muxwire.Core, helperEcho, "a", "b"}})
	if r.reply.Error != "" || r.stdout != "core a b\n" || r.exit.Code != 7 {
		t.Fatalf("@core = %+v", r)
	}
}

// TestExitComesWhileALeftChildHoldsStdout: a command that exits while
// something it started still holds its stdout gets its Exit (after
// outputDelay) instead of a stream that never ends.
func TestExitComesWhileALeftChildHoldsStdout(t *testing.T) {
	s := startServer(t)
	st, rep := open(t, s.sess, muxwire.Request{Op: muxwire.OpExec, Argv: []string{"sh", "-c", "sleep 300 & echo $!; exit 4"}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	sleeper := make(chan int, 1)
	r := within(t, "the exit with stdout held open", func() result {
		return collect(st, func(p string) {
			pid, _ := strconv.Atoi(strings.TrimSpace(p))
			sleeper <- pid
		})
	})
	_ = syscall.Kill(<-sleeper, syscall.SIGKILL) // ours: the command's child, still running
	if r.exit.Code != 4 {
		t.Fatalf("exit = %+v, %v: want code 4", r.exit, r.err)
	}
}
