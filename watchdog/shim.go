package watchdog

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// Exit codes, following the shell and tini.
const (
	exitUsage         = 2
	exitParentGone    = 3 // the launcher died before releasing the start barrier
	exitNotExecutable = 126
	exitNotFound      = 127
)

// ShimMain runs the shim and returns its exit code.
func ShimMain(args []string, stderr io.Writer) int {
	trace("shim-main", "")
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
// watch the parent, and run the shim loop until the tree is empty.
func runShim(o ShimOptions, log *slog.Logger) int {
	lifeline, report, err := openShimFDs(o)
	if err != nil {
		log.Error("open fds", "err", err)
		return exitUsage
	}
	exitWord := openOwnerExit(o, log)
	signals := notifyShimSignals()
	var hold treeHold // what containTree, startChild and runShimLoop hand each other
	if err := leadProcessGroup(); err != nil {
		log.Warn("cannot lead a process group; the tree is followed by parent links only", "err", err)
	}
	if err := containTree(&hold); err != nil {
		log.Warn("not a subreaper; orphaned descendants may escape", "err", err)
	}
	if !awaitStart(lifeline) {
		log.Info("parent gone before the start barrier; not starting the backend")
		return exitParentGone
	}
	trace("released", "")
	self, err := proc.Self()
	if err != nil {
		log.Error("identify self", "err", err)
		return 1
	}
	env, err := childEnv(self, o.Parent.Nonce)
	if err != nil {
		sendReport(report, Report{Error: err.Error()}, log)
		log.Error("backend environment", "err", err)
		return 1
	}
	tree, cgroupErr := makeTreeCgroup(o.Cgroup, log)
	child, tree, err := startBackend(&hold, o.Argv, env, tree, &cgroupErr, log)
	if err != nil {
		sendReport(report, Report{Error: err.Error()}, log)
		log.Error("start backend", "argv", o.Argv, "err", err)
		return execExitCode(err)
	}
	sendReport(report, backendReport(child, tree, cgroupErr), log)
	trace("backend-started", strconv.Itoa(child.PID))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	parentGone := make(chan Reason, 1)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		if reason, ok := followOwner(ctx, o.Parent, lifeline, exitWord, func() { requestStop(signals) }, log); ok {
			trace("parent-gone", string(reason))
			parentGone <- reason
		}
	}()
	code := runShimLoop(&hold, child, tree, signals, parentGone, o.Grace, log)
	releaseTreeCgroup(tree, log)
	trace("tree-empty", strconv.Itoa(code))
	cancel()
	<-watchDone
	return code
}

// stopRequest is the stop message on the lifeline, delivered to the shim
// loop as the teardown signal it stands for.
type stopRequest struct{}

func (stopRequest) String() string { return "stop request on the lifeline" }
func (stopRequest) Signal()        {}

// requestStop hands a stop message to the shim loop, which tears down on
// it as on SIGTERM. A full channel already holds a teardown signal.
func requestStop(signals chan<- os.Signal) {
	select {
	case signals <- stopRequest{}:
	default:
	}
}

// makeTreeCgroup creates the backend's cgroup when --cgroup asked for one.
// Without it the backend still runs: the process group and the tree walk
// hold its tree, as they do where there are no cgroups, and the report
// says why.
func makeTreeCgroup(name string, log *slog.Logger) (*cgroup.Cgroup, error) {
	if name == "" {
		return nil, nil
	}
	tree, err := openTreeCgroup(name)
	if err != nil {
		log.Warn("no cgroup for the backend; its process tree holds it", "err", err)
	}
	return tree, err
}

// startBackend starts the backend inside tree when there is one. If that
// fails while a plain start works (a kernel or a delegation that refuses
// the migration), the backend runs without the cgroup, which is removed,
// and cgroupErr says why.
func startBackend(h *treeHold, argv, env []string, tree *cgroup.Cgroup, cgroupErr *error, log *slog.Logger) (proc.Identity, *cgroup.Cgroup, error) {
	child, err := startChild(h, argv, env, tree)
	if err == nil || tree == nil {
		return child, tree, err
	}
	_ = tree.Remove()
	child, err2 := startChild(h, argv, env, nil)
	if err2 != nil {
		return proc.Identity{}, nil, err2
	}
	log.Warn("backend started outside its cgroup", "err", err)
	*cgroupErr = fmt.Errorf("watchdog: start inside %s: %w", tree.Path(), err)
	return child, nil, nil
}

// backendReport is the report of a started backend.
func backendReport(child proc.Identity, tree *cgroup.Cgroup, cgroupErr error) Report {
	r := Report{PID: child.PID, Start: child.Start}
	if tree != nil {
		r.Cgroup = tree.Path()
	}
	if cgroupErr != nil {
		r.CgroupError = cgroupErr.Error()
	}
	return r
}

// releaseTreeCgroup removes the backend's cgroup once the tree is gone.
// Every child of ours has been collected by now; a member that never was our
// descendant (moved in from outside) is killed: membership makes it the
// backend's. The wait is for "populated 0" (inotify), bounded.
func releaseTreeCgroup(tree *cgroup.Cgroup, log *slog.Logger) {
	if tree == nil {
		return
	}
	if populated, _ := tree.Populated(); populated {
		_ = tree.Kill()
	}
	ctx, cancel := context.WithTimeout(context.Background(), cgroup.KillWait)
	defer cancel()
	if err := tree.WaitEmpty(ctx); err != nil {
		log.Warn("backend cgroup not empty", "cgroup", tree.Path(), "err", err)
	}
	if err := tree.Remove(); err != nil {
		log.Warn("remove the backend's cgroup", "err", err)
	}
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

// openOwnerExit maps the launcher's exit word when --owner-exit passed
// one, before anything is started (the backend must not inherit the fd).
// Without it, or with one it refuses, the lifeline still sees the death.
func openOwnerExit(o ShimOptions, log *slog.Logger) *exitWord {
	if o.OwnerExit == 0 {
		return nil
	}
	w, err := openExitWord(o.OwnerExit, o.Parent.PID)
	if err != nil {
		log.Warn("no exit word; the lifeline alone tells the owner's death", "err", err)
		return nil
	}
	return w
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
		if k == hermes.EnvParentPID || k == hermes.EnvParentMarker || k == hermes.EnvParentNonce {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		hermes.EnvParentPID+"="+strconv.Itoa(self.PID),
		hermes.EnvParentMarker+"="+proc.HermesMarker(self),
		hermes.EnvParentNonce+"="+nonce,
	), nil
}

// sendReport writes the report, if the launcher asked for one, and closes
// the report fd: the launcher reads one line. A failed write only means
// the launcher stopped listening, which the lifeline will tell us.
func sendReport(f *os.File, r Report, log *slog.Logger) {
	if f == nil {
		return
	}
	if err := writeReport(f, r); err != nil {
		log.Warn("report to the launcher", "err", err)
	}
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
