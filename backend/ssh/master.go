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
	cmd      *exec.Cmd
	lifeline *os.File // our end of the shim's lifeline; closing it ends the master
	stderr   *Tail
	ready    chan struct{}
	done     chan struct{}
	waited   func() // drops cmd's registration with the orphan collector
}

// startMaster spawns the shim, releases it, waits for its report that ssh
// runs, and starts the goroutine that owns the shim.
func startMaster(self string, owner proc.Identity, ssh string, args []string) (*master, error) {
	pipes, err := watchdog.NewShimPipes()
	if err != nil {
		return nil, fmt.Errorf("ssh: master: %w", err)
	}
	defer pipes.Report.Close()
	argv := watchdog.ShimCommand(self, watchdog.ShimOptions{
		Lifeline:  pipes.ShimLifeline,
		Report:    pipes.ShimReport,
		OwnerExit: pipes.ShimOwnerExit,
		Parent:    watchdog.Parent{PID: owner.PID, Start: owner.Start},
		Grace:     masterGrace,
		Argv:      append([]string{ssh}, args...),
	})
	cmd := exec.Command(argv[0], argv[1:]...)
	setProcAttr(cmd)
	m := &master{cmd: cmd, lifeline: pipes.Lifeline, stderr: NewTail(8 << 10), ready: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = m.stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = pipes.Attach(cmd)
	}
	if err == nil {
		m.waited, err = proc.StartChild(cmd)
	}
	pipes.CloseShimEnds()
	if err != nil {
		m.lifeline.Close()
		return nil, fmt.Errorf("ssh: start the master's shim %s: %w", self, err)
	}
	go m.run(out) // ends when the shim exits and is reaped
	if err := m.release(pipes.Report); err != nil {
		m.kill()
		<-m.done
		return nil, err
	}
	return m, nil
}

// release lets the shim start ssh and reads its report: ssh runs, or why
// not (not found, say).
func (m *master) release(report io.Reader) error {
	if _, err := io.WriteString(m.lifeline, watchdog.FormatStart()); err != nil {
		return fmt.Errorf("ssh: release the master's shim: %w", err)
	}
	r, err := watchdog.ReadReport(report)
	switch {
	case err != nil:
		return fmt.Errorf("ssh: the master's shim: %w: %s", err, lastLine(m.stderr.String()))
	case r.Error != "":
		return fmt.Errorf("ssh: start the master: %s", r.Error)
	}
	return nil
}

// run reads stdout until EOF (the ready line, then nothing), then reaps.
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
	if err := m.lifeline.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		_ = m.cmd.Process.Kill() // cannot happen for a pipe; the shim at least goes
	}
}

// sshStderr is the master's stderr without the shim's own log lines, so
// that classify and lastLine see what ssh said.
func (m *master) sshStderr() string {
	var b strings.Builder
	for line := range strings.Lines(m.stderr.String()) {
		if !strings.Contains(line, "component=watchdog") {
			b.WriteString(line)
		}
	}
	return b.String()
}

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
