package testbin

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/cgroup"
)

// Launcher is a `hermes-desktop run --headless` started by a test, with its
// own state dir, HERMES_HOME and tag.
type Launcher struct {
	t          testing.TB
	Bin        string
	StateDir   string
	HermesHome string
	Tag        string
	Cmd        *exec.Cmd
	Stdout     *Lines
	Stderr     *Lines
	exited     chan struct{}
	wrapper    []string
	env        []string // added to NewEnv's, later entries winning
	// Cgroup is the test's own cgroup the launcher is born in (so its own
	// cgroup, under which it makes its backends', is the test's); nil where
	// cgroup v2 is not writable. Launchers from StartAnother share it.
	Cgroup *cgroup.Cgroup
}

// NewEnv returns the base environment for processes a test starts: the
// test's tag, its own HERMES_HOME, no inherited state dir.
func NewEnv(tag, hermesHome string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "HERMES_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, Env(tag), hermes.EnvHome+"="+hermesHome)
}

// StartLauncher starts `hermes-desktop run --headless --state-dir DIR` plus
// args, in which "{bin}" stands for the built binary. The test's cleanup stops it (and fails the test if anything of its
// tree is left).
func StartLauncher(t testing.TB, args ...string) *Launcher {
	t.Helper()
	return StartLauncherUnder(t, nil, args...)
}

// StartLauncherUnder starts the launcher through a wrapper command that
// execs it (prlimit, say), so the launcher keeps the wrapper's PID.
func StartLauncherUnder(t testing.TB, wrapper []string, args ...string) *Launcher {
	t.Helper()
	return startLauncher(t, Path(t), wrapper, args)
}

// StartLauncherBin is StartLauncher with another binary (an installed
// copy of some version, for the update tests).
func StartLauncherBin(t testing.TB, bin string, args ...string) *Launcher {
	t.Helper()
	return startLauncher(t, bin, nil, args)
}

// StartLauncherEnv is StartLauncher with env (KEY=VALUE entries) added to
// the launcher's environment, over what NewEnv gives it: a PATH with a fake
// xdg-open first, say.
func StartLauncherEnv(t testing.TB, env []string, args ...string) *Launcher {
	t.Helper()
	return startLauncherEnv(t, Path(t), nil, env, args)
}

func startLauncher(t testing.TB, bin string, wrapper, args []string) *Launcher {
	t.Helper()
	return startLauncherEnv(t, bin, wrapper, nil, args)
}

func startLauncherEnv(t testing.TB, bin string, wrapper, env, args []string) *Launcher {
	t.Helper()
	base := t.TempDir()
	cg := tryCgroup(t) // first, so that its cleanup runs last
	l := &Launcher{
		Cgroup:     cg,
		t:          t,
		Bin:        bin,
		StateDir:   filepath.Join(base, "state"),
		HermesHome: filepath.Join(base, "hermes-home"),
		Tag:        Tag(t),
		wrapper:    wrapper,
		env:        env,
	}
	l.start(args...)
	return l
}

// Base returns a launcher that is not started: for CLI calls and
// StartAnother on a state dir a test sets up itself.
func Base(t testing.TB, stateDir, hermesHome, tag string) *Launcher {
	return &Launcher{t: t, Bin: Path(t), StateDir: stateDir, HermesHome: hermesHome, Tag: tag, Cgroup: tryCgroup(t)}
}

// AddEnv adds env (KEY=VALUE entries) to what this launcher and those
// StartAnother starts from it get, over NewEnv's.
func (l *Launcher) AddEnv(env ...string) { l.env = append(l.env, env...) }

// StartAnother starts a second launcher on the same state dir, tag and
// cgroup.
func (l *Launcher) StartAnother(args ...string) *Launcher {
	l2 := &Launcher{t: l.t, Bin: l.Bin, StateDir: l.StateDir, HermesHome: l.HermesHome, Tag: l.Tag, Cgroup: l.Cgroup, env: l.env}
	l2.start(args...)
	return l2
}

func (l *Launcher) start(args ...string) {
	l.t.Helper()
	// An unrecorded orphan must be an hour old before a test's launcher
	// reaps it: tests reap only by the ownership evidence they created
	// (their own records and nonces), never someone else's old orphan.
	// A test's own --min-orphan-age comes later and wins.
	argv := []string{"run", "--headless", "--state-dir", l.StateDir, "--min-orphan-age", "1h"}
	for _, a := range args {
		argv = append(argv, strings.ReplaceAll(a, "{bin}", l.Bin))
	}
	full := append(append([]string(nil), l.wrapper...), append([]string{l.Bin}, argv...)...)
	l.Cmd = exec.Command(full[0], full[1:]...)
	l.Cmd.Env = append(NewEnv(l.Tag, l.HermesHome), l.env...)
	outR, err := l.Cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	errR, err := l.Cmd.StderrPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	start := l.Cmd.Start
	if l.Cgroup != nil {
		start = func() error { return StartIn(l.Cmd, l.Cgroup) }
	}
	if err := start(); err != nil {
		l.t.Fatalf("start launcher: %v", err)
	}
	l.Stdout, l.Stderr = newLines(outR), newLines(errR)
	l.exited = make(chan struct{})
	go func() {
		l.Stdout.wait()
		l.Stderr.wait()
		_ = l.Cmd.Wait()
		close(l.exited)
	}()
	l.t.Cleanup(l.cleanup)
}

func (l *Launcher) cleanup() {
	select {
	case <-l.exited:
	default:
		_, _, _ = l.CLI("stop", "--timeout", "30s")
		select {
		case <-l.exited:
		case <-time.After(30 * time.Second):
			_ = l.Cmd.Process.Kill()
			<-l.exited
		}
	}
	if l.t.Failed() {
		l.t.Logf("launcher stdout:\n%s\nlauncher stderr:\n%s", l.Stdout.String(), l.Stderr.String())
	}
}

// WaitExit waits up to d for the launcher to exit and returns its exit code.
func (l *Launcher) WaitExit(d time.Duration) (int, error) {
	select {
	case <-l.exited:
		return l.Cmd.ProcessState.ExitCode(), nil
	case <-time.After(d):
		return -1, fmt.Errorf("launcher still running after %v", d)
	}
}

var readyLine = regexp.MustCompile(`backend (\S+) ready pid=(\d+) port=(\d+) url=(\S+)`)

// Ready is one "backend X ready" announcement.
type Ready struct {
	Name string
	PID  int
	Port int
	URL  string
}

// WaitReady waits for the n-th (1-based) ready announcement.
func (l *Launcher) WaitReady(n int, d time.Duration) Ready {
	l.t.Helper()
	m, err := l.Stdout.WaitMatchN(readyLine, n, d)
	if err != nil {
		l.t.Fatalf("waiting for ready line %d: %v\nstdout:\n%s\nstderr:\n%s", n, err, l.Stdout.String(), l.Stderr.String())
	}
	pid, _ := strconv.Atoi(m[2])
	port, _ := strconv.Atoi(m[3])
	return Ready{Name: m[1], PID: pid, Port: port, URL: m[4]}
}

// CLI runs `hermes-desktop ARGS --state-dir DIR` against this launcher.
func (l *Launcher) CLI(args ...string) (stdout, stderr string, code int) {
	args = append(args, "--state-dir", l.StateDir)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.Bin, args...)
	cmd.Env = NewEnv(l.Tag, l.HermesHome)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return o.String(), e.String(), code
}

// Signal sends sig to the launcher process (which this test started).
func (l *Launcher) Signal(sig syscall.Signal) error { return l.Cmd.Process.Signal(sig) }

// Lines collects a stream's lines for tests to wait on.
type Lines struct {
	mu    sync.Mutex // guards lines
	lines []string
	cond  *sync.Cond
	done  chan struct{}
}

func newLines(r io.Reader) *Lines {
	l := &Lines{done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.cond.Broadcast()
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	}()
	return l
}

func (l *Lines) wait() { <-l.done }

// String returns everything read so far.
func (l *Lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// WaitMatchN waits up to d for the n-th line matching re and returns its
// submatches.
func (l *Lines) WaitMatchN(re *regexp.Regexp, n int, d time.Duration) ([]string, error) {
	expired := false // guarded by l.mu; the timer wakes the wait below
	timer := time.AfterFunc(d, func() {
		l.mu.Lock()
		expired = true
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer timer.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		seen := 0
		for _, line := range l.lines {
			if m := re.FindStringSubmatch(line); m != nil {
				if seen++; seen == n {
					return m, nil
				}
			}
		}
		select {
		case <-l.done:
			return nil, fmt.Errorf("stream ended without match %d of %q", n, re)
		default:
		}
		if expired {
			return nil, fmt.Errorf("no match %d of %q within %v", n, re, d)
		}
		l.cond.Wait()
	}
}
