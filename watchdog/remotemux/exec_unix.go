//go:build unix

package remotemux

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/yamux"
	"golang.org/x/sys/unix"

	"hermes-desktop/contract/muxwire"
	"hermes-desktop/platform/proc"
)

// serveExec runs one OpExec command over st: its Reply, its output and
// exit as frames, the app's stdin and kill frames to it. It returns once
// the command is collected and its Exit sent; its frame reader has ended
// by then too.
func serveExec(st *yamux.Stream, q muxwire.Request, gone <-chan struct{}) {
	_ = gone // the stream ends with the session: readFrames sees it
	out := &frameWriter{w: st}
	c, err := startCommand(q, out)
	if err != nil {
		_ = muxwire.WriteReply(st, muxwire.Reply{Error: err.Error()})
		return
	}
	var timer *time.Timer
	if q.TimeoutMS > 0 {
		timer = time.AfterFunc(time.Duration(q.TimeoutMS)*time.Millisecond, func() { c.kill(true) })
	}
	reader := make(chan struct{})
	go func() { // ends at the stream's end or at the read deadline below
		defer close(reader)
		c.readFrames(st)
	}()
	exit := c.wait()
	if timer != nil {
		timer.Stop()
	}
	b, _ := json.Marshal(exit)
	_ = out.frame(muxwire.FrameExit, b)
	_ = st.SetReadDeadline(time.Now()) // the command is done: end the reader
	<-reader
	c.settle()
}

// command is one OpExec child and what its stream asked of it.
type command struct {
	cmd    *exec.Cmd
	stdin  interface{ Close() error }
	write  func([]byte) (int, error) // the child's stdin
	timed  bool                      // the Request had a timeout
	waited func()                    // releases its proc registration

	mu        sync.Mutex    // guards the fields below
	termSent  bool          // SIGTERM went to the group
	timedOut  bool          // the timeout killed it
	collected bool          // Wait returned: its PID is no longer ours
	killDone  chan struct{} // closed when the SIGKILL step is over
	groupGone chan struct{} // closed to skip the SIGKILL: nothing is left
}

// startCommand starts q's command in a process group of its own, its
// output going to out, and writes the Reply with its PID before any
// output frame (out is held across the start).
func startCommand(q muxwire.Request, out *frameWriter) (*command, error) {
	path, err := resolve(q.Argv)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: append([]string{path}, q.Argv[1:]...)}
	// Its own group: a kill reaches what it started too, and a terminal
	// signal of ours never reaches it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = kindWriter{out, muxwire.FrameStdout}
	cmd.Stderr = kindWriter{out, muxwire.FrameStderr}
	cmd.WaitDelay = outputDelay
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("remotemux: exec %q: stdin: %w", q.Argv[0], err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	waited, err := proc.StartChild(cmd)
	if err != nil {
		_ = stdin.Close()
		return nil, fmt.Errorf("remotemux: exec %q: %w", q.Argv[0], err)
	}
	out.writeLocked(func() error {
		return muxwire.WriteReply(out.w, muxwire.Reply{PID: cmd.Process.Pid})
	})
	return &command{cmd: cmd, stdin: stdin, write: stdin.Write, timed: q.TimeoutMS > 0,
		waited: waited, killDone: make(chan struct{}), groupGone: make(chan struct{})}, nil
}

// resolve names the program of argv: the core itself for muxwire.Core,
// else argv[0] looked up on PATH.
func resolve(argv []string) (string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", errors.New("remotemux: exec: no program")
	}
	if argv[0] == muxwire.Core {
		self, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("remotemux: exec %s: %w", muxwire.Core, err)
		}
		return self, nil
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return "", fmt.Errorf("remotemux: exec: %w", err)
	}
	return path, nil
}

// readFrames applies the app's frames until the stream ends; its end
// kills a timed command and closes the stdin of one without (a backend's
// channel: its stdin is the remote watchdog's lifeline, which decides).
func (c *command) readFrames(st *yamux.Stream) {
	var buf []byte
	for {
		kind, p, err := muxwire.ReadFrame(st, buf)
		if err != nil {
			if c.timed {
				c.kill(false)
			} else {
				_ = c.stdin.Close()
			}
			return
		}
		if cap(p) > cap(buf) {
			buf = p[:0]
		}
		switch kind {
		case muxwire.FrameStdin:
			if len(p) == 0 {
				_ = c.stdin.Close()
			} else {
				_, _ = c.write(p) // a stdin it closed: the frames still go on (a kill may come)
			}
		case muxwire.FrameKill:
			c.kill(false)
		}
	}
}

// kill sends SIGTERM to the command's group, and SIGKILL KillGrace
// later; once per command, never after it was collected (its PID, and so
// its group's ID, may then be another's).
func (c *command) kill(timedOut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.termSent || c.collected {
		return
	}
	c.termSent, c.timedOut = true, timedOut
	pgid := c.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM) // ESRCH: already gone
	go func() {                              // ends after KillGrace or once the group is known empty
		defer close(c.killDone)
		t := time.NewTimer(KillGrace)
		defer t.Stop()
		select {
		case <-t.C:
			// The leader may be collected by now; its group's ID stays
			// reserved while any member lives, so this reaches only them.
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		case <-c.groupGone:
		}
	}()
}

// wait collects the command and returns its Exit.
func (c *command) wait() muxwire.Exit {
	err := c.cmd.Wait()
	c.waited()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collected = true
	return exitOf(c.cmd.ProcessState, err, c.timedOut)
}

// settle finishes a kill once the command is collected: what is left of
// its group gets its SIGKILL at the end of KillGrace (skipped when nothing
// is left), so the handler returns only after the kill's goroutine.
func (c *command) settle() {
	c.mu.Lock()
	termSent := c.termSent
	c.mu.Unlock()
	if !termSent {
		return
	}
	if e := syscall.Kill(-c.cmd.Process.Pid, 0); errors.Is(e, syscall.ESRCH) {
		close(c.groupGone)
	}
	<-c.killDone
}

// exitOf turns a collected command's state into its Exit frame.
func exitOf(ps *os.ProcessState, err error, timedOut bool) muxwire.Exit {
	e := muxwire.Exit{Code: -1, TimedOut: timedOut}
	if ps == nil {
		e.Error = fmt.Sprintf("remotemux: wait: %v", err)
		return e
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Signal = unix.SignalName(ws.Signal())
		return e
	}
	e.Code = ps.ExitCode()
	return e
}

// frameWriter writes frames onto a stream, one at a time. Once a write
// fails (the stream or session is gone) it drops every later frame, so a
// child's output is still drained and it never blocks or gets EPIPE.
type frameWriter struct {
	w    interface{ Write([]byte) (int, error) }
	mu   sync.Mutex // guards dead and the stream's writes
	dead bool
}

// frame writes one frame, split at muxwire.MaxFrame.
func (f *frameWriter) frame(kind byte, p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var err error
	f.writeLocked(func() error {
		for {
			n := min(len(p), muxwire.MaxFrame)
			if err = muxwire.WriteFrame(f.w, kind, p[:n]); err != nil || n == len(p) {
				return err
			}
			p = p[n:]
		}
	})
	return err
}

// writeLocked runs write unless the stream is dead, and marks it dead
// when write fails; f.mu is held.
func (f *frameWriter) writeLocked(write func() error) {
	if f.dead {
		return
	}
	if write() != nil {
		f.dead = true
	}
}

// kindWriter is a command's stdout or stderr: each write one frame.
type kindWriter struct {
	f    *frameWriter
	kind byte
}

func (k kindWriter) Write(p []byte) (int, error) {
	_ = k.f.frame(k.kind, p)
	return len(p), nil
}
