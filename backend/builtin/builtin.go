// Package builtin is the built-in backend, `hermes-desktop serve` and
// `hermes-desktop dashboard`: a small HTTP server that speaks the Hermes
// backend contract (READY line, ready file, the session-token gate on
// /api/*, /api/health, /api/status, headless serve vs the dashboard page,
// parent-death watchdog) so the launcher works without Hermes installed, and
// whose fault flags (slow start, crash, ignore SIGTERM, plain and setsid
// children, late children, leaks) let the test suite reproduce every failure
// the Hermes desktop met.
//
// It is a child process of its own: it speaks the Hermes contract and
// watches its parent as a real backend does.
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
	"sync"
	"syscall"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/lockfile"
	"hermes-desktop/watchdog"
)

// Main runs the built-in backend in serve mode (`hermes-desktop serve`)
// and returns its exit code; /api/health reports version.
func Main(version string, args []string, stdout, stderr io.Writer) int {
	return mainVerb(VerbServe, version, args, stdout, stderr)
}

// DashboardMain runs the built-in backend in dashboard mode
// (`hermes-desktop dashboard`) and returns its exit code; /api/health
// reports version.
func DashboardMain(version string, args []string, stdout, stderr io.Writer) int {
	return mainVerb(VerbDashboard, version, args, stdout, stderr)
}

func mainVerb(verb Verb, version string, args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(verb, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("component", verb.String(), "pid", os.Getpid())
	token, err := sessionToken(opts.SSHTokenFile)
	if err != nil {
		log.Error("session token", "err", err)
		return 1
	}
	if err := keepInheritedNofile(); err != nil {
		log.Warn("could not keep the inherited open-file limit", "err", err)
	}
	s := &server{opts: opts, version: version, log: log, stdout: stdout, started: time.Now(), token: token}
	return s.run()
}

type server struct {
	opts    Options
	version string // reported by /api/health and /api/status
	log     *slog.Logger
	stdout  io.Writer
	started time.Time
	token   string // the session token; never logged

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
			return hermes.ExitPortInUse
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
	if err := s.startFaultChildren(ctx, exit); err != nil {
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
	cancel() // no late children or fault ticks while shutting down
	shutdownCtx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	_ = srv.Shutdown(shutdownCtx)
	return code
}

// announce writes the ready file (when asked) before printing the READY
// line, so a launcher that trusts either sees a listening server.
func (s *server) announce(port int) error {
	if path := os.Getenv(hermes.EnvReadyFile); path != "" {
		data, _ := json.Marshal(hermes.ReadyFile{Port: port})
		if err := lockfile.WriteFileAtomic(path, data); err != nil {
			return fmt.Errorf("write ready file: %w", err)
		}
	}
	_, err := fmt.Fprintf(s.stdout, "%s%d\n", s.opts.Verb.readyPrefix(), port)
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
	if s.opts.DaemonizeEvery > 0 {
		go s.every(ctx, s.opts.DaemonizeEvery, s.spawnDaemon)
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

// startFaultChildren starts the --spawn-*children at once, or, with
// --children-after, that long after binding (the caller has just bound), as
// Hermes starts its stdio MCP servers about a second after bind. A late
// spawn that fails ends the server with exit code 1.
func (s *server) startFaultChildren(ctx context.Context, exit chan<- int) error {
	if s.opts.ChildrenAfter == 0 {
		return s.spawnFaultChildren()
	}
	go func() { // ends when the timer fires or ctx ends, whichever first
		t := time.NewTimer(s.opts.ChildrenAfter)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.spawnFaultChildren(); err != nil {
			s.log.Error("spawn children", "err", err)
			exit <- 1
		}
	}()
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
