package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"

	"hermes-desktop/platform/cmdline"
	"hermes-desktop/platform/proc"
)

// killGrace is how long the remote `timeout` waits after SIGTERM before
// SIGKILL (the 2 of -k 2 in timeoutScript), and how long past that we wait
// for ssh to report it.
const killGrace = 2 * time.Second

// timeoutScript runs "$@" for $0 seconds on the remote. GNU timeout
// (Linux) signals the command's whole process group, SIGKILL killGrace
// later; where it is missing (macOS without coreutils) perl's alarm ends
// the command itself, not its children (the remote watchdog will).
const timeoutScript = `if command -v timeout >/dev/null 2>&1; then exec timeout -k 2 "$0" "$@"; fi; ` +
	`exec perl -e "alarm shift; exec @ARGV or exit 127" "$0" "$@"`

// Exit statuses that mean the remote timeout fired: timeout's own 124,
// 128+KILL after -k, 128+ALRM from perl's alarm.
var timeoutCodes = map[int]bool{124: true, 137: true, 142: true}

// TimeoutArgv wraps argv so that it runs for at most timeout (rounded up
// to whole seconds, at least 1) where it runs, killed there when it ends:
// `sh -c timeoutScript SECS argv...`. bound is how long the local side
// should wait for it: the timeout, the kill's grace, and a margin to hear
// of it. Another transport (WSL's) runs the same argv.
func TimeoutArgv(timeout time.Duration, argv []string) (timed []string, bound time.Duration) {
	secs := seconds(timeout)
	n, _ := strconv.Atoi(secs)
	return append([]string{"sh", "-c", timeoutScript, secs}, argv...), time.Duration(n)*time.Second + 2*killGrace
}

// IsTimeoutExit reports whether err is the exit of a TimeoutArgv command
// whose timeout fired.
func IsTimeoutExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && timeoutCodes[ee.ExitCode()]
}

// Run runs argv on the host through the master, with stdin as its
// standard input (nil: none, the command reads EOF), and returns its
// stdout. Every remote command has a timeout: when it ends, the command is
// killed on the remote (not only our ssh client, which would leave it
// running: Hermes #110478), and Run returns an error wrapping ErrTimeout.
// If ctx ends first, our client is killed and the remote command ends at
// its timeout at the latest. A failed command's error wraps an
// *exec.ExitError with its exit status (255: ssh itself failed).
func (h *Host) Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error) {
	if timeout <= 0 || len(argv) == 0 {
		return nil, errors.New("ssh: run needs a command and a timeout")
	}
	if err := h.Connect(ctx); err != nil {
		return nil, err
	}
	timed, bound := TimeoutArgv(timeout, argv)
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	remote := cmdline.JoinRemote(timed)
	cmd := exec.CommandContext(ctx, h.opts.SSH, h.clientArgs("-T", "--", h.opts.Destination, remote)...)
	setProcAttr(cmd)
	// A mux client hands its stdio to the master, which holds the pipes as
	// long as the remote command runs: without WaitDelay a remote command
	// that outlived our client would block Run.
	cmd.WaitDelay = killGrace
	var stdout bytes.Buffer
	stderr := NewTail(8 << 10)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, stderr
	err := proc.RunChild(cmd)
	switch {
	case err == nil:
		return stdout.Bytes(), nil
	case IsTimeoutExit(err):
		return stdout.Bytes(), fmt.Errorf("ssh: run %q on %s: %w after %s", argv[0], h.opts.Destination, ErrTimeout, timeout)
	}
	return stdout.Bytes(), fmt.Errorf("ssh: run %q on %s: %w: %s", argv[0], h.opts.Destination, err, lastLine(stderr.String()))
}

// Channel is a long-running remote command whose stdin and stdout are
// ours (a backend's lifeline). Its caller owns it: Wait must be called.
type Channel struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	cmd    *exec.Cmd
	waited func() // drops cmd's registration with the orphan collector
	stderr *Tail
}

// Start runs argv on the host through the master without a timeout; ctx
// bounds the connect only. The remote command sees its stdin close when
// the channel ends (Kill, Close of the Host, the master's death).
func (h *Host) Start(ctx context.Context, argv ...string) (*Channel, error) {
	if len(argv) == 0 {
		return nil, errors.New("ssh: start needs a command")
	}
	if err := h.Connect(ctx); err != nil {
		return nil, err
	}
	cmd := exec.Command(h.opts.SSH, h.clientArgs("-T", "--", h.opts.Destination, cmdline.JoinRemote(argv))...)
	setProcAttr(cmd)
	c, err := StartChannel(cmd)
	if err != nil {
		return nil, fmt.Errorf("ssh: start %q on %s: %w", argv[0], h.opts.Destination, err)
	}
	return c, nil
}

// StartChannel starts cmd, a local client of a long remote command (ssh,
// wsl.exe), as a Channel: its stdin and stdout become the channel's, its
// stderr's tail goes into Wait's error, and its wait status is ours, not
// the orphan collector's. cmd must not have its stdio set.
func StartChannel(cmd *exec.Cmd) (*Channel, error) {
	// A client may hand its stdio on to a process that outlives it: see Run.
	cmd.WaitDelay = killGrace
	c := &Channel{cmd: cmd, stderr: NewTail(8 << 10)}
	cmd.Stderr = c.stderr
	var err error
	if c.Stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if c.Stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if c.waited, err = proc.StartChild(cmd); err != nil {
		return nil, err // Start closed the pipes
	}
	return c, nil
}

// Wait waits for the channel to end (read Stdout to EOF first) and collects
// our ssh client.
func (c *Channel) Wait() error {
	err := c.cmd.Wait()
	c.waited()
	if err != nil {
		return fmt.Errorf("ssh: channel: %w: %s", err, lastLine(c.stderr.String()))
	}
	return nil
}

// Kill ends our ssh client, which closes the channel. Call Wait after.
func (c *Channel) Kill() error { return c.cmd.Process.Kill() }

// forward is one -L forward: 127.0.0.1:Local to 127.0.0.1:Remote.
type forward struct{ Local, Remote int }

func (f forward) spec() string {
	return fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", f.Local, f.Remote)
}

// Forward listens on 127.0.0.1:local and forwards each connection through
// the master to 127.0.0.1:remote on the host (`ssh -O forward -L`). It is
// re-added after a reconnect until Unforward.
func (h *Host) Forward(ctx context.Context, local, remote int) error {
	if err := h.Connect(ctx); err != nil {
		return err
	}
	f := forward{local, remote}
	if err := h.control(ctx, "forward", "-L", f.spec()); err != nil {
		return err
	}
	h.mu.Lock()
	h.forwards = append(h.forwards, f)
	h.mu.Unlock()
	return nil
}

// Unforward cancels a Forward.
func (h *Host) Unforward(ctx context.Context, local, remote int) error {
	f := forward{local, remote}
	h.mu.Lock()
	for i, g := range h.forwards {
		if g == f {
			h.forwards = append(h.forwards[:i], h.forwards[i+1:]...)
			break
		}
	}
	h.mu.Unlock()
	return h.control(ctx, "cancel", "-L", f.spec())
}

// reforward re-adds the forwards after a reconnect; a port now taken
// locally is logged in the error of the next Forward, not fatal here.
func (h *Host) reforward(ctx context.Context, fwds []forward) {
	for _, f := range fwds {
		_ = h.control(ctx, "forward", "-L", f.spec())
	}
}

// control sends `ssh -O op` to the master.
func (h *Host) control(ctx context.Context, op string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	a := append(h.clientArgs("-O", op), args...)
	out, err := proc.CombinedOutputChild(exec.CommandContext(ctx, h.opts.SSH, append(a, "--", h.opts.Destination)...))
	if err != nil {
		return fmt.Errorf("ssh: -O %s %s: %w: %s", op, h.opts.Destination, err, lastLine(string(out)))
	}
	return nil
}
