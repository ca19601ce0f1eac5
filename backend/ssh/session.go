package ssh

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"hermes-desktop/backend/transport"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// sessionGrace is the shim's time between SIGTERM and SIGKILL for the
// session's ssh: ssh exits on SIGTERM at once, so this only bounds a stuck
// one.
const sessionGrace = 2 * time.Second

// session is the one ssh process of a host, run behind the watchdog shim
// (`hermes-desktop watchdog --lifeline=... -- ssh ...`) so that it dies
// with the app however the app ends: a plain child would outlive a SIGKILL
// of the app and keep the connection, and with it every remote backend's
// lifeline, open (issue 25). Its stdin and stdout are ours: first the
// bootstrap's exchange, then the multiplexer. One goroutine (run) owns the
// shim's Wait and closes done after it.
type session struct {
	cmd    *exec.Cmd
	shim   *watchdog.ShimClient // closing it ends ssh
	stdin  *os.File             // ssh's stdin, our write end
	stdout *os.File             // ssh's stdout, our read end
	stderr *transport.Tail
	done   chan struct{}
	waited func() // drops cmd's registration with the orphan collector
}

// startSession starts ssh behind the shim, releases it, waits for its
// report that ssh runs, and starts the goroutine that owns the shim.
func startSession(self string, owner proc.Identity, ssh string, args []string) (*session, error) {
	s := &session{stderr: transport.NewTail(16 << 10), done: make(chan struct{})}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("ssh: the session's stdin: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("ssh: the session's stdout: %w", err)
	}
	s.stdin, s.stdout = inW, outR
	prepare := func(cmd *exec.Cmd) error {
		setProcAttr(cmd)
		// *os.File: handed to the shim (and by it to ssh) as they are, so
		// that Wait never closes our ends under the multiplexer.
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, s.stderr
		return nil
	}
	start := func(cmd *exec.Cmd) error {
		var err error
		s.waited, err = proc.StartChild(cmd)
		return err
	}
	s.cmd, s.shim, err = watchdog.StartShim(self, watchdog.ShimOptions{
		Parent: watchdog.Parent{PID: owner.PID, Start: owner.Start},
		Grace:  sessionGrace,
		Argv:   append([]string{ssh}, args...),
	}, prepare, start)
	// The shim has its copies; ours would keep EOF from ever coming.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("ssh: start the session's shim %s: %w", self, err)
	}
	go s.run() // ends when the shim exits and is collected
	if err := s.release(); err != nil {
		s.kill()
		<-s.done
		return nil, err
	}
	return s, nil
}

// release lets the shim start ssh and reads its report: ssh runs, or why
// not (not found, say).
func (s *session) release() error {
	if err := s.shim.Release(); err != nil {
		return fmt.Errorf("ssh: the session: %w", err)
	}
	r, err := s.shim.ReadReport()
	switch {
	case err != nil:
		return fmt.Errorf("ssh: the session's shim: %w: %s", err, lastLine(s.stderr.String()))
	case r.Error != "":
		return fmt.Errorf("ssh: start the session: %s", r.Error)
	}
	return nil
}

// run collects the shim, then closes our ends of ssh's stdio (the
// multiplexer over them ends with an error).
func (s *session) run() {
	_ = s.cmd.Wait()
	s.waited()
	s.kill() // the shim is gone; nothing reads the lifeline any more
	s.stdin.Close()
	s.stdout.Close()
	close(s.done)
}

// kill closes the lifeline: the shim sees EOF and tears ssh down (SIGTERM,
// then SIGKILL after sessionGrace), then exits. No PID is signalled, so
// nothing can hit a reused one. Idempotent.
func (s *session) kill() {
	if err := s.shim.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		_ = s.cmd.Process.Kill() // cannot happen for a pipe; the shim at least goes
	}
}

// end kills the session and waits for it.
func (s *session) end() {
	s.kill()
	<-s.done
}

// sshStderr is ssh's stderr without the shim's own log lines, so that
// classify and lastLine see what ssh said.
func (s *session) sshStderr() string { return watchdog.WithoutShimLog(s.stderr.String()) }

// Read reads ssh's stdout; Write writes its stdin; Close closes both (the
// multiplexer's connection).
func (s *session) Read(p []byte) (int, error)  { return s.stdout.Read(p) }
func (s *session) Write(p []byte) (int, error) { return s.stdin.Write(p) }
func (s *session) Close() error {
	s.stdin.Close()
	return s.stdout.Close()
}
