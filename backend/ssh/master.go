package ssh

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// master is one `ssh -M -N` process. One goroutine (run) owns its Wait and
// closes done after it; ready closes when the ready line arrives.
type master struct {
	cmd    *exec.Cmd
	stderr *tail
	ready  chan struct{}
	done   chan struct{}
}

// startMaster spawns the master and the goroutine that owns it.
func startMaster(ssh string, args []string) (*master, error) {
	cmd := exec.Command(ssh, args...)
	setProcAttr(cmd)
	m := &master{cmd: cmd, stderr: &tail{max: 8 << 10}, ready: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = m.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("ssh: master pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ssh: start %s: %w", ssh, err)
	}
	go m.run(out) // ends when the master exits and is reaped
	return m, nil
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
		return classify(m.stderr.String())
	case <-t.C:
		return fmt.Errorf("%w: not connected after %s", ErrUnreachable, timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// kill SIGKILLs the master. Only called while m.done is open, so the PID
// is still our unreaped child and cannot have been reused.
func (m *master) kill() { _ = m.cmd.Process.Kill() }

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
