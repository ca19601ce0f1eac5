package transport

import (
	"errors"
	"io"
	"strings"
	"sync"
)

// Channel is a long remote command whose stdin and stdout are ours (a
// backend's lifeline). Its caller owns it: Wait must be called, after
// reading Stdout to EOF.
type Channel struct {
	Stdin  io.WriteCloser
	Stdout io.Reader
	wait   func() error
	kill   func() error
}

// NewChannel is the channel of a command with stdin and stdout, whose end
// wait collects and kill forces.
func NewChannel(stdin io.WriteCloser, stdout io.Reader, wait, kill func() error) *Channel {
	return &Channel{Stdin: stdin, Stdout: stdout, wait: wait, kill: kill}
}

// Wait waits for the command's end and says how it ended.
func (c *Channel) Wait() error {
	if c.wait == nil {
		return errors.New("transport: a channel that never started")
	}
	return c.wait()
}

// Kill ends the command now; call Wait after.
func (c *Channel) Kill() error {
	if c.kill == nil {
		return nil
	}
	return c.kill()
}

// Tail keeps the last bytes written to it (a command's stderr, for the
// line an error quotes). Safe for concurrent use.
type Tail struct {
	mu  sync.Mutex
	buf []byte // guarded by mu
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

// LastLine is the last non-empty line of s, trimmed: what an error quotes
// of a command's stderr.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
