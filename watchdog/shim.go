package watchdog

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/internal/proc"
	"hermes-desktop/lockfile"
)

// The shim's command line. The launcher starts every backend as
//
//	hermes-desktop watchdog --lifeline 3 --report 4 --parent-pid P \
//	    --parent-marker M --nonce N --grace 5s -- CMD ARGS...
//
// and the shim becomes the backend's parent and process-group leader.

// Exit codes, following the shell and tini.
const (
	exitUsage         = 2
	exitParentGone    = 3 // the launcher died before releasing the start barrier
	exitNotExecutable = 126
	exitNotFound      = 127
)

// StartMessage is the line the launcher writes on the lifeline to release
// the start barrier once it has recorded the shim.
const StartMessage = "start"

// ShimOptions are the shim's flags.
type ShimOptions struct {
	// Lifeline is the fd of the lifeline's read end; -1 means none.
	Lifeline int
	// Report is the fd on which the shim writes the backend's identity as
	// one JSON line; -1 means none.
	Report int
	// Parent names the launcher; its PID defaults to getppid().
	Parent Parent
	// Grace is the time between SIGTERM and SIGKILL at teardown.
	Grace time.Duration
	// Argv is the backend's command line.
	Argv []string
}

// Report is what the shim tells the launcher about the backend it started.
type Report struct {
	PID   int    `json:"pid,omitempty"`
	Start string `json:"start,omitempty"`
	Error string `json:"error,omitempty"`
}

func parseShimFlags(args []string, stderr io.Writer) (ShimOptions, error) {
	o := ShimOptions{Lifeline: -1, Report: -1}
	fs := flag.NewFlagSet("watchdog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: hermes-desktop watchdog [flags] -- CMD ARGS...

Runs CMD as a child in this process's group and tears CMD's whole tree down
(SIGTERM, grace period, SIGKILL; descendants that called setsid included)
when the parent dies, when this shim gets SIGTERM/SIGINT/SIGHUP, or when CMD
exits. Parent death is seen through EOF on the lifeline fd, the OS exit
notification (pidfd / kqueue / process handle), or getppid() changing.
CMD gets HERMES_PARENT_PID, HERMES_PARENT_START_MARKER and HERMES_PARENT_NONCE
naming this shim. Exits with CMD's status (128+N if killed by signal N).

`)
		fs.PrintDefaults()
	}
	fs.IntVar(&o.Lifeline, "lifeline", -1, "fd of the lifeline pipe's read end; EOF means the parent is gone (-1: none)")
	fs.IntVar(&o.Report, "report", -1, "fd to write the backend's pid and start marker to, as one JSON line (-1: none)")
	fs.IntVar(&o.Parent.PID, "parent-pid", 0, "PID of the parent to watch (default: the actual parent)")
	fs.StringVar(&o.Parent.Start, "parent-marker", "", "start marker of the parent, so a reused PID is not mistaken for it")
	fs.StringVar(&o.Parent.Nonce, "nonce", "", "nonce passed to the backend as HERMES_PARENT_NONCE (default: random)")
	fs.DurationVar(&o.Grace, "grace", envDuration("HERMES_DESKTOP_GRACE", 5*time.Second), "time between SIGTERM and SIGKILL (env HERMES_DESKTOP_GRACE)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.Argv = fs.Args()
	if len(o.Argv) == 0 {
		fs.Usage()
		return o, errors.New("watchdog: no command given after --")
	}
	if o.Parent.PID == 0 {
		o.Parent.PID = os.Getppid()
	}
	if o.Parent.Start != "" {
		if _, _, err := proc.ParseMarker(o.Parent.Start); err != nil {
			return o, fmt.Errorf("watchdog: --parent-marker: %w", err)
		}
	}
	if o.Grace < 0 {
		return o, errors.New("watchdog: --grace must not be negative")
	}
	return o, nil
}

func envDuration(key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(key)); err == nil && d >= 0 {
		return d
	}
	return def
}

// ShimMain runs the shim and returns its exit code.
func ShimMain(args []string, stderr io.Writer) int {
	opts, err := parseShimFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("component", "watchdog", "pid", os.Getpid())
	return runShim(opts, log)
}

// runShim is the shim's life, in order: take the fds, catch signals, become
// a subreaper, wait for the start barrier, start the backend, report it,
// watch the parent, and supervise until the tree is empty.
func runShim(o ShimOptions, log *slog.Logger) int {
	lifeline, report, err := openShimFDs(o)
	if err != nil {
		log.Error("open fds", "err", err)
		return exitUsage
	}
	signals := notifyShimSignals()
	if err := leadProcessGroup(); err != nil {
		log.Warn("cannot lead a process group; the tree is followed by parent links only", "err", err)
	}
	if err := becomeSubreaper(); err != nil {
		log.Warn("not a subreaper; orphaned descendants may escape", "err", err)
	}
	if !awaitStart(lifeline) {
		log.Info("parent gone before the start barrier; not starting the backend")
		return exitParentGone
	}
	self, err := proc.Self()
	if err != nil {
		log.Error("identify self", "err", err)
		return 1
	}
	env, err := childEnv(self, o.Parent.Nonce)
	if err != nil {
		writeReport(report, Report{Error: err.Error()})
		log.Error("backend environment", "err", err)
		return 1
	}
	child, err := startChild(o.Argv, env)
	if err != nil {
		writeReport(report, Report{Error: err.Error()})
		log.Error("start backend", "argv", o.Argv, "err", err)
		return execExitCode(err)
	}
	writeReport(report, Report{PID: child.PID, Start: child.Start})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	parentGone := make(chan Reason, 1)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		if reason, ok := followOwner(ctx, o.Parent, lifeline, log); ok {
			trace("parent-gone", string(reason))
			parentGone <- reason
		}
	}()
	code := supervise(child, signals, parentGone, o.Grace, log)
	trace("tree-empty", strconv.Itoa(code))
	cancel()
	<-watchDone
	return code
}

func openShimFDs(o ShimOptions) (lifeline, report *os.File, err error) {
	if o.Lifeline >= 0 {
		if lifeline, err = OpenLifeline(uintptr(o.Lifeline)); err != nil {
			return nil, nil, err
		}
	}
	if o.Report >= 0 {
		if report, err = openReportFD(uintptr(o.Report)); err != nil {
			return nil, nil, err
		}
	}
	return lifeline, report, nil
}

// awaitStart blocks until the launcher releases the start barrier with
// StartMessage. EOF first means the launcher died before recording us: we
// must not start an unrecorded backend. Without a lifeline there is no
// barrier.
func awaitStart(lifeline *os.File) bool {
	if lifeline == nil {
		return true
	}
	var line []byte
	buf := make([]byte, 1)
	for len(line) <= len(StartMessage) {
		n, err := lifeline.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return string(line) == StartMessage
			}
			line = append(line, buf[0])
		}
		if err != nil {
			return false
		}
	}
	return false
}

// childEnv is our environment with the Hermes parent contract pointing at
// the shim: HERMES_PARENT_PID plus the shim's start marker and the nonce,
// both or neither, so Hermes' own watchdog follows the shim.
func childEnv(self proc.Identity, nonce string) ([]string, error) {
	if nonce == "" {
		var err error
		if nonce, err = lockfile.NewNonce(); err != nil {
			return nil, fmt.Errorf("watchdog: backend nonce: %w", err)
		}
	}
	env := make([]string, 0, len(os.Environ())+3)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == EnvParentPID || k == EnvParentMarker || k == EnvParentNonce {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		EnvParentPID+"="+strconv.Itoa(self.PID),
		EnvParentMarker+"="+proc.HermesMarker(self),
		EnvParentNonce+"="+nonce,
	), nil
}

func writeReport(f *os.File, r Report) {
	if f == nil {
		return
	}
	data, _ := json.Marshal(r)
	_, _ = f.Write(append(data, '\n'))
	f.Close()
}

// execExitCode maps a failure to start the backend to the shell's codes.
func execExitCode(err error) int {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return exitNotFound
	case errors.Is(err, os.ErrPermission):
		return exitNotExecutable
	}
	return exitNotFound
}
