package ssh

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// masterGrace is the shim's time between SIGTERM and SIGKILL for the
// master: ssh exits on SIGTERM at once, so this only bounds a stuck one.
const masterGrace = 2 * time.Second

// master is one `ssh -M -N` process, run behind the watchdog shim
// (`hermes-desktop watchdog --lifeline=... -- ssh ...`) so that it dies
// with the app however the app ends: a plain child would outlive a SIGKILL
// of the app and keep the connection, and with it every remote backend's
// lifeline, open (issue 25). One goroutine (run) owns the shim's Wait and
// closes done after it; ready closes when the ready line arrives.
type master struct {
	cmd    *exec.Cmd
	shim   *watchdog.ShimClient // closing it ends the master
	stderr *Tail
	ready  chan struct{}
	done   chan struct{}
	waited func() // drops cmd's registration with the orphan collector
}

// startMaster starts ssh behind the shim, releases it, waits for its
// report that ssh runs, and starts the goroutine that owns the shim.
func startMaster(self string, owner proc.Identity, ssh string, args []string) (*master, error) {
	m := &master{stderr: NewTail(8 << 10), ready: make(chan struct{}), done: make(chan struct{})}
	var out io.Reader
	prepare := func(cmd *exec.Cmd) error {
		setProcAttr(cmd)
		cmd.Stderr = m.stderr
		var err error
		out, err = cmd.StdoutPipe()
		return err
	}
	start := func(cmd *exec.Cmd) error {
		var err error
		m.waited, err = proc.StartChild(cmd)
		return err
	}
	var err error
	m.cmd, m.shim, err = watchdog.StartShim(self, watchdog.ShimOptions{
		Parent: watchdog.Parent{PID: owner.PID, Start: owner.Start},
		Grace:  masterGrace,
		Argv:   append([]string{ssh}, args...),
	}, prepare, start)
	if err != nil {
		return nil, fmt.Errorf("ssh: start the master's shim %s: %w", self, err)
	}
	go m.run(out) // ends when the shim exits and is collected
	if err := m.release(); err != nil {
		m.kill()
		<-m.done
		return nil, err
	}
	return m, nil
}

// release lets the shim start ssh and reads its report: ssh runs, or why
// not (not found, say).
func (m *master) release() error {
	if err := m.shim.Release(); err != nil {
		return fmt.Errorf("ssh: the master: %w", err)
	}
	r, err := m.shim.ReadReport()
	switch {
	case err != nil:
		return fmt.Errorf("ssh: the master's shim: %w: %s", err, lastLine(m.stderr.String()))
	case r.Error != "":
		return fmt.Errorf("ssh: start the master: %s", r.Error)
	}
	return nil
}

// run reads stdout until EOF (the ready line, then nothing), then
// collects the shim.
func (m *master) run(out io.Reader) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == readyLine {
			select {
			case <-m.ready:
			default:
				close(m.ready)
			}
		}
	}
	_ = m.cmd.Wait()
	m.waited()
	m.kill() // the shim is gone; nothing reads the lifeline any more
	close(m.done)
}

// waitReady waits for the ready line, the master's exit (classified from
// its stderr) or the end of ctx or of timeout.
func (m *master) waitReady(ctx context.Context, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-m.ready:
		return nil
	case <-m.done:
		return classify(m.sshStderr())
	case <-t.C:
		return fmt.Errorf("%w: not connected after %s", ErrUnreachable, timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// kill closes the lifeline: the shim sees EOF and tears ssh down (SIGTERM,
// then SIGKILL after masterGrace), then exits. No PID is signalled, so
// nothing can hit a reused one. Idempotent.
func (m *master) kill() {
	if err := m.shim.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		_ = m.cmd.Process.Kill() // cannot happen for a pipe; the shim at least goes
	}
}

// sshStderr is the master's stderr without the shim's own log lines, so
// that classify and lastLine see what ssh said.
func (m *master) sshStderr() string { return watchdog.WithoutShimLog(m.stderr.String()) }

// Tail keeps the last bytes written to it (a command's stderr, for the
// line an error quotes). Safe for concurrent use.
type Tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// NewTail keeps the last max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

// Write keeps p's bytes, dropping the oldest beyond the bound.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// String is what is kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
