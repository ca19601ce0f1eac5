package sshbridge

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/contract/muxwire"
	"hermes-desktop/platform/proc"
)

// outputWait bounds how long ssh's output may stay open after ssh exited
// (a ProxyCommand child that kept it): exec's WaitDelay.
const outputWait = 2 * time.Second

// session is one connection's ssh, the leader of a process group of its
// own (so a drop also ends what it started, a ProxyCommand).
type session struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	waited func() // releases the child's registration once collected
	logf   func(string, ...any)

	mu     sync.Mutex // guards exited
	exited bool       // the leader has exited: its group id may be freed from now on
}

// runSession runs ssh with argv for c and sends its exit status last; a
// connection that ends first kills it. It returns once ssh is collected
// and the connection's reader has ended.
func runSession(c net.Conn, opts Options, argv []string) {
	out := &frameWriter{c: c}
	s, err := startSession(opts, argv, out)
	if err != nil {
		opts.Logf("sshbridge: %v", err)
		_ = out.exit(muxwire.Exit{Code: 127, Error: err.Error()})
		return
	}
	relayed := make(chan struct{})
	go func() { defer close(relayed); s.relayStdin(c) }() // ends when a read of c fails
	exit := s.wait()
	_ = out.exit(exit)
	_ = c.Close() // the client has its status; this ends relayStdin
	<-relayed
}

// startSession starts ssh with Forced and opts.Args before argv, its output framed on out.
func startSession(opts Options, argv []string, out *frameWriter) (*session, error) {
	cmd := exec.Command(opts.SSH, slices.Concat(Forced, opts.Args, argv)...)
	cmd.Stdout = out.stream(muxwire.FrameStdout)
	cmd.Stderr = out.stream(muxwire.FrameStderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = outputWait
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("sshbridge: stdin pipe: %w", err)
	}
	waited, err := proc.StartChild(cmd)
	if err != nil {
		return nil, fmt.Errorf("sshbridge: start %s: %w", opts.SSH, err)
	}
	return &session{cmd: cmd, stdin: stdin, waited: waited, logf: opts.Logf}, nil
}

// relayStdin copies the client's FrameStdin to ssh's stdin (an empty one
// closes it) until a read fails: then, unless ssh has exited already, the
// client is gone and ssh is killed, as a killed ssh.exe would be gone.
// Anything but FrameStdin is a client that does not speak the wire: the
// same.
func (s *session) relayStdin(c net.Conn) {
	defer s.kill()
	var buf []byte
	for {
		kind, p, err := muxwire.ReadFrame(c, buf)
		if err != nil {
			return
		}
		buf = p[:0]
		if kind != muxwire.FrameStdin {
			s.logf("sshbridge: frame kind %d from the client: ending its ssh", kind)
			return
		}
		if len(p) == 0 {
			_ = s.stdin.Close()
			continue
		}
		// An error here is ssh gone or its stdin closed: keep reading, so
		// that a drop is still seen.
		_, _ = s.stdin.Write(p)
	}
}

// kill SIGKILLs ssh's group unless its leader has exited. The leader is
// then uncollected (wait sets exited before it collects), so its PID, the
// group's id, cannot have been handed to another process.
func (s *session) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited {
		return
	}
	if err := proc.SignalGroup(s.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, proc.ErrNotFound) {
		s.logf("sshbridge: kill ssh %d: %v", s.cmd.Process.Pid, err)
	}
}

// wait waits for ssh's exit without collecting it, marks it exited, then
// collects it and its output, and says how it ended.
func (s *session) wait() muxwire.Exit {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, s.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break // an error other than EINTR: cmd.Wait below says it
		}
	}
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
	err := s.cmd.Wait()
	s.waited()
	st := s.cmd.ProcessState
	if st == nil {
		return muxwire.Exit{Code: 255, Error: fmt.Sprintf("sshbridge: wait: %v", err)}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return muxwire.Exit{Code: -1, Signal: ws.Signal().String()}
	}
	return muxwire.Exit{Code: st.ExitCode()}
}
