package wsl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"time"

	"hermes-desktop/backend/transport"
	"hermes-desktop/platform/proc"
)

// ErrNoWSL means wsl.exe is not there: WSL is not installed, or this is
// not Windows.
var ErrNoWSL = errors.New("wsl: wsl.exe not found (is the Windows Subsystem for Linux installed?)")

// lastLine is what an error quotes of wsl.exe's stderr.
func lastLine(s string) string { return transport.LastLine(s) }

// waitDelay bounds how long Run and a channel's Wait wait for wsl.exe's
// pipes after it exits (a process inside may still hold them), like ssh's.
const waitDelay = 2 * time.Second

// stderrTail is how much of wsl.exe's stderr an error quotes.
const stderrTail = 8 << 10

// distroPattern is what a distribution name may be (wsl --install and
// --import refuse other characters); a leading '-' would be an option.
var distroPattern = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$`)

// Options say which distribution to reach and how.
type Options struct {
	// Distro is the distribution (wsl --list); "" is the default one.
	Distro string
	// WSL is wsl.exe; "" looks it up in PATH.
	WSL string
}

// Transport runs commands in one WSL distribution. Its methods are safe
// for concurrent use; Close ends its forwards.
type Transport struct {
	distro string
	wsl    string // the resolved wsl.exe, "" when missing
	lookup error  // why wsl is "" (wraps ErrNoWSL)

	mu       sync.Mutex
	forwards transport.Forwards // by local port
	closed   bool               // guarded by mu
}

// New returns the transport to opts.Distro. A missing wsl.exe is not an
// error here: Status says so, and every command fails with it.
func New(opts Options) (*Transport, error) {
	if opts.Distro != "" && !distroPattern.MatchString(opts.Distro) {
		return nil, fmt.Errorf("wsl: invalid distribution name %q", opts.Distro)
	}
	t := &Transport{distro: opts.Distro}
	name := opts.WSL
	if name == "" {
		name = "wsl.exe"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		t.lookup = fmt.Errorf("%w: %w", ErrNoWSL, err)
	} else {
		t.wsl = path
	}
	return t, nil
}

// Distro is the distribution's name ("" for the default one).
func (t *Transport) Distro() string { return t.distro }

// Status is Connected while wsl.exe is there: there is no connection to
// keep, each command starts the distribution if it is not running.
func (t *Transport) Status() transport.Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return transport.Status{State: transport.Closed}
	case t.lookup != nil:
		return transport.Status{State: transport.Failed, Err: t.lookup}
	}
	return transport.Status{State: transport.Connected}
}

// Connect has no connection to make: it says whether wsl.exe is there.
func (t *Transport) Connect(context.Context) error { return t.ready() }

// ready says why no command can run now, or nil.
func (t *Transport) ready() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return transport.ErrClosed
	}
	return t.lookup
}

// Args is wsl.exe's command line (without wsl.exe itself) that runs argv
// in the distribution, in the user's home, without a shell in between.
func (t *Transport) Args(argv []string) []string {
	a := make([]string, 0, len(argv)+6)
	if t.distro != "" {
		a = append(a, "--distribution", t.distro)
	}
	a = append(a, "--cd", "~", "--exec")
	return append(a, argv...)
}

// command is the wsl.exe process that runs argv, killed when ctx ends.
func (t *Transport) command(ctx context.Context, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, t.wsl, t.Args(argv)...)
	// wsl.exe writes its own messages (an unknown distribution, WSL not
	// enabled) in UTF-16 unless told otherwise; our errors quote them.
	cmd.Env = append(os.Environ(), "WSL_UTF8=1")
	setProcAttr(cmd)
	return cmd
}

// Run runs argv in the distribution with stdin as its standard input (nil:
// none) and returns its stdout. When timeout ends, the command is killed
// inside the distribution (TimeoutArgv), and Run returns an error
// wrapping transport.ErrTimeout; if ctx ends first, our wsl.exe is killed and the
// command ends at its timeout at the latest. A failed command's error
// wraps an *exec.ExitError with its exit status.
func (t *Transport) Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error) {
	if timeout <= 0 || len(argv) == 0 {
		return nil, errors.New("wsl: run needs a command and a timeout")
	}
	if err := t.ready(); err != nil {
		return nil, err
	}
	timed, bound := TimeoutArgv(timeout, argv)
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	cmd := t.command(ctx, timed)
	cmd.WaitDelay = waitDelay
	var stdout bytes.Buffer
	stderr := transport.NewTail(stderrTail)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, stderr
	err := proc.RunChild(cmd)
	switch {
	case err == nil:
		return stdout.Bytes(), nil
	case isTimeoutExit(err):
		return stdout.Bytes(), fmt.Errorf("wsl: run %q in %s: %w after %s", argv[0], t.name(), transport.ErrTimeout, timeout)
	}
	return stdout.Bytes(), fmt.Errorf("wsl: run %q in %s: %w: %s", argv[0], t.name(), err, lastLine(stderr.String()))
}

// Start runs argv in the distribution without a timeout, its stdin and
// stdout ours; the command sees its stdin close when the channel ends
// (Kill, or our wsl.exe dying with the app). ctx is not used after the
// start: the channel lives until Kill.
func (t *Transport) Start(ctx context.Context, argv ...string) (*transport.Channel, error) {
	if len(argv) == 0 {
		return nil, errors.New("wsl: start needs a command")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.ready(); err != nil {
		return nil, err
	}
	// Not ctx: the channel outlives the start, until its owner's Kill.
	c, err := startChannel(t.command(context.Background(), argv))
	if err != nil {
		return nil, fmt.Errorf("wsl: start %q in %s: %w", argv[0], t.name(), err)
	}
	return c, nil
}

// name is the distribution as a message names it.
func (t *Transport) name() string {
	if t.distro == "" {
		return "the default WSL distribution"
	}
	return "WSL distribution " + t.distro
}

// Close ends every forward; later commands fail with transport.ErrClosed.
// Channels already started are their owners' to end.
func (t *Transport) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.forwards.Close()
	return nil
}

// A WSL distribution is a remote runner's host like an ssh one.
var _ transport.Transport = (*Transport)(nil)
