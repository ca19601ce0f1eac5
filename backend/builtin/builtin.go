// Package builtin is the built-in backend, `hermes-desktop serve`: a small
// HTTP server that speaks the Hermes backend contract (READY line, ready
// file, /api/health, /api/status, parent-death watchdog) so the launcher
// works without Hermes installed, and whose fault flags (slow start, crash,
// ignore SIGTERM, plain and setsid children, leaks) let the test suite
// reproduce every failure the Hermes desktop met.
//
// It is a child process of its own and sits beside the engine: it imports
// internal/proc, lockfile and watchdog (the parent-death watch), never
// backend.
package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"hermes-desktop/lockfile"
	"hermes-desktop/watchdog"
)

// Version is reported by /api/health; main sets it at start-up.
var Version = "dev"

// ReadyPrefix is the stdout line that announces the port, as Hermes prints it.
const ReadyPrefix = "HERMES_BACKEND_READY port="

// Options are the flags of `hermes-desktop serve`.
type Options struct {
	Host string
	Port int
	// Fault injection for tests; zero values mean "behave".
	StartDelay          time.Duration
	IgnoreSIGTERM       bool
	CrashAfter          time.Duration
	ExitCode            int // -1: unset
	SpawnChildren       int
	SpawnSetsidChildren int
	LeakChildrenEvery   time.Duration
	LeakFDsEvery        time.Duration
	// ScrubChildEnv starts the fault children with only HOME and PATH, as
	// the Python MCP SDK starts stdio servers: nothing in their environment
	// ties them to the backend.
	ScrubChildEnv bool
	// KeepChildEnv names more variables a scrubbed child keeps (a test
	// suite's tag, say).
	KeepChildEnv []string
	// ParentPoll, when set, watches the parent only by polling getppid()
	// at this period, as Hermes' own watchdog does (a benchmark baseline).
	ParentPoll time.Duration
	// NoParentWatch disables the parent watchdog (a benchmark baseline).
	NoParentWatch bool
}

func parseFlags(args []string, stderr io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: hermes-desktop serve [--host H] [--port N] [fault flags]")
		fmt.Fprintln(stderr, "\nThe built-in backend: prints "+ReadyPrefix+"N when listening and serves /api/health and /api/status.")
		fmt.Fprintln(stderr, "Follows HERMES_PARENT_PID (+ marker and nonce) and exits when that process dies.")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.Host, "host", "127.0.0.1", "address to bind")
	fs.IntVar(&o.Port, "port", 0, "port to bind (0: ephemeral)")
	fs.DurationVar(&o.StartDelay, "start-delay", 0, "fault: wait this long before listening")
	fs.BoolVar(&o.IgnoreSIGTERM, "ignore-sigterm", false, "fault: catch and ignore SIGTERM and SIGINT")
	fs.DurationVar(&o.CrashAfter, "crash-after", 0, "fault: exit with --exit-code (default 1) this long after becoming ready")
	fs.IntVar(&o.ExitCode, "exit-code", -1, "fault: exit code; alone, exit with it before becoming ready")
	fs.IntVar(&o.SpawnChildren, "spawn-children", 0, "fault: start N child processes in the backend's process group")
	fs.IntVar(&o.SpawnSetsidChildren, "spawn-setsid-children", 0, "fault: start N children in new sessions (like MCP stdio servers)")
	fs.DurationVar(&o.LeakChildrenEvery, "leak-children-every", 0, "fault: start a new identical child this often and never stop the old ones")
	fs.DurationVar(&o.LeakFDsEvery, "leak-fds-every", 0, "fault: open a file descriptor this often and never close it")
	fs.BoolVar(&o.ScrubChildEnv, "scrub-child-env", false, "fault: start children with only HOME and PATH in their environment, like MCP stdio servers")
	fs.Func("keep-child-env", "with --scrub-child-env: also keep these variables (comma-separated names)", func(v string) error {
		o.KeepChildEnv = append(o.KeepChildEnv, strings.Split(v, ",")...)
		return nil
	})
	fs.DurationVar(&o.ParentPoll, "parent-poll", 0, "baseline: notice parent death only by polling getppid() this often, like Hermes (default: exit notification + lifeline)")
	fs.BoolVar(&o.NoParentWatch, "no-parent-watch", false, "baseline: ignore HERMES_PARENT_PID entirely")
	// Hermes' serve takes a profile; accepted and ignored so a Hermes command
	// line works with the built-in backend too.
	fs.String("profile", "", "accepted for Hermes compatibility; ignored")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, fmt.Errorf("serve: --port %d out of range", o.Port)
	}
	return o, nil
}

// Main runs the built-in backend and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("component", "serve", "pid", os.Getpid())
	if err := keepInheritedNofile(); err != nil {
		log.Warn("could not keep the inherited open-file limit", "err", err)
	}
	s := &server{opts: opts, log: log, stdout: stdout, started: time.Now()}
	return s.run()
}

type server struct {
	opts    Options
	log     *slog.Logger
	stdout  io.Writer
	started time.Time

	mu       sync.Mutex // guards children and leaked
	children []int
	leaked   []*os.File
}

func (s *server) run() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 4)
	s.handleSignals(ctx, exit)
	s.watchParent(ctx, exit)

	if s.opts.StartDelay > 0 {
		select {
		case <-time.After(s.opts.StartDelay):
		case code := <-exit:
			return code
		}
	}
	if s.opts.ExitCode >= 0 && s.opts.CrashAfter == 0 {
		s.log.Info("exiting before ready as asked", "code", s.opts.ExitCode)
		return s.opts.ExitCode
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port)))
	if err != nil {
		s.log.Error("listen", "err", err)
		if errors.Is(err, syscall.EADDRINUSE) {
			return 75 // Hermes: port in use
		}
		return 1
	}
	srv := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
			exit <- 1
		}
	}()
	if err := s.spawnFaultChildren(); err != nil {
		s.log.Error("spawn children", "err", err)
		return 1
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := s.announce(port); err != nil {
		s.log.Error("announce", "err", err)
		return 1
	}
	s.startFaultTimers(ctx, exit)
	code := <-exit
	shutdownCtx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	_ = srv.Shutdown(shutdownCtx)
	return code
}

// announce writes the ready file (when asked) before printing the READY
// line, so a launcher that trusts either sees a listening server.
func (s *server) announce(port int) error {
	if path := os.Getenv("HERMES_DESKTOP_READY_FILE"); path != "" {
		data, _ := json.Marshal(map[string]int{"port": port})
		if err := lockfile.WriteFileAtomic(path, data); err != nil {
			return fmt.Errorf("write ready file: %w", err)
		}
	}
	_, err := fmt.Fprintf(s.stdout, "%s%d\n", ReadyPrefix, port)
	return err
}

func (s *server) handleSignals(ctx context.Context, exit chan<- int) {
	// Notify, never Ignore: an ignored signal stays ignored in every child
	// we exec, which would make our children immune to SIGTERM.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	// A write to a closed stdout/stderr must fail with EPIPE, not kill us:
	// Hermes keeps serving when its launcher's log pipe goes away.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go func() {
		// Stays subscribed until the end: a second SIGTERM during shutdown
		// (a group signal and a direct one) must not kill us mid-exit.
		stopping := false
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-sigs:
				switch {
				case s.opts.IgnoreSIGTERM:
					s.log.Info("ignoring signal as asked", "signal", sig)
				case !stopping:
					stopping = true
					s.log.Info("stopping on signal", "signal", sig)
					exit <- 0
				}
			}
		}
	}()
}

// watchParent follows HERMES_PARENT_PID like Hermes' own watchdog: when the
// parent dies the backend exits. Like Hermes, it does not stop its children;
// cleaning those up is the launcher's and the shim's job.
func (s *server) watchParent(ctx context.Context, exit chan<- int) {
	parent, ok, err := watchdog.ParentFromEnv()
	if err != nil {
		s.log.Warn("parent watchdog disabled", "err", err)
		return
	}
	if !ok || s.opts.NoParentWatch {
		return
	}
	opts := watchdog.Options{Parent: parent}
	if s.opts.ParentPoll > 0 {
		opts.NoExitNotify, opts.PollInterval = true, s.opts.ParentPoll
	}
	go func() {
		reason, err := watchdog.Watch(ctx, opts)
		if err != nil {
			return
		}
		s.log.Info("parent is gone; exiting", "parent", parent.PID, "reason", reason)
		exit <- 1
	}()
}

func (s *server) startFaultTimers(ctx context.Context, exit chan<- int) {
	if s.opts.CrashAfter > 0 {
		code := s.opts.ExitCode
		if code < 0 {
			code = 1
		}
		time.AfterFunc(s.opts.CrashAfter, func() {
			s.log.Info("crashing as asked", "code", code)
			exit <- code
		})
	}
	if s.opts.LeakChildrenEvery > 0 {
		go s.every(ctx, s.opts.LeakChildrenEvery, func() error { return s.spawnChild("leaked", false) })
	}
	if s.opts.LeakFDsEvery > 0 {
		go s.every(ctx, s.opts.LeakFDsEvery, s.leakFD)
	}
}

func (s *server) every(ctx context.Context, d time.Duration, fn func() error) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := fn(); err != nil {
				s.log.Warn("fault tick failed", "err", err)
			}
		}
	}
}

func (s *server) leakFD() error {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("leak fd: %w", err)
	}
	s.mu.Lock()
	s.leaked = append(s.leaked, f)
	s.mu.Unlock()
	return nil
}

func (s *server) spawnFaultChildren() error {
	for i := 0; i < s.opts.SpawnChildren; i++ {
		if err := s.spawnChild("plain", false); err != nil {
			return err
		}
	}
	for i := 0; i < s.opts.SpawnSetsidChildren; i++ {
		if err := s.spawnChild("setsid", true); err != nil {
			return err
		}
	}
	return nil
}
