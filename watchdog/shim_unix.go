//go:build unix

package watchdog

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// killRepeat is how often the kill phase re-scans for stragglers (children
// forked after the last scan, or reparented to us meanwhile). It runs only
// during the bounded kill phase, never while idle.
const killRepeat = 20 * time.Millisecond

// notifyShimSignals catches the signals that mean "tear down". Caught, not
// ignored: an ignored signal would stay ignored in the backend.
//
// SIGPIPE is caught too: once the launcher is gone, our stderr is a broken
// pipe, and an uncaught SIGPIPE on a log write would kill the shim in the
// middle of its teardown.
func notifyShimSignals() chan os.Signal {
	c := make(chan os.Signal, 4)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return c
}

// leadProcessGroup makes the shim the leader of its own process group (the
// launcher already starts it that way; this covers a shim started by hand),
// so the backend is born in a group whose id the living shim pins.
func leadProcessGroup() error {
	if unix.Getpgrp() == os.Getpid() {
		return nil
	}
	if err := unix.Setpgid(0, 0); err != nil {
		return fmt.Errorf("setpgid: %w", err)
	}
	return nil
}

func openReportFD(fd uintptr) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(fd), &st); err != nil {
		return nil, fmt.Errorf("watchdog: report fd %d: %w", fd, err)
	}
	unix.CloseOnExec(int(fd))
	return os.NewFile(fd, "report"), nil
}

// startChild starts the backend in the shim's own process group (the shim
// leads it) with stdio inherited, and inside tree when there is one. The
// shim collects all children itself with wait4(-1), so the os.Process is
// released at once.
func startChild(_ *treeHold, argv, env []string, tree *cgroup.Cgroup) (proc.Identity, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return proc.Identity{}, fmt.Errorf("watchdog: %w", err)
	}
	attr := &os.ProcAttr{Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}}
	var p *os.Process
	if tree != nil {
		p, err = startProcessIn(tree, path, argv, attr)
	} else {
		p, err = os.StartProcess(path, argv, attr)
	}
	if err != nil {
		return proc.Identity{}, fmt.Errorf("watchdog: start %s: %w", path, err)
	}
	id, err := proc.Lookup(p.Pid)
	_ = p.Release()
	if err != nil {
		_ = unix.Kill(p.Pid, unix.SIGKILL) // our uncollected child: the PID cannot be anyone else
		return proc.Identity{}, fmt.Errorf("watchdog: identify backend %d: %w", p.Pid, err)
	}
	return id, nil
}

// shimLoop is the shim's main loop state. Only runShimLoop's goroutine
// touches it.
type shimLoop struct {
	child      proc.Identity
	cgroup     *cgroup.Cgroup // the backend's cgroup; nil when it has none
	tree       *proc.Teardown // our tree's teardown, from its start; nil before
	log        *slog.Logger
	grace      time.Duration
	self       int
	status     unix.WaitStatus
	childDone  bool
	tearing    bool
	graceTimer *time.Timer
	killTicker *time.Ticker
}

// runShimLoop collects every child (we are a subreaper, so orphaned descendants
// come to us), starts the teardown when the backend exits, a teardown signal
// arrives, or the parent dies, and returns the backend's status once no
// child is left.
func runShimLoop(_ *treeHold, child proc.Identity, tree *cgroup.Cgroup, signals <-chan os.Signal, parentGone <-chan Reason, grace time.Duration, log *slog.Logger) int {
	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, syscall.SIGCHLD)
	defer signal.Stop(sigchld)
	s := &shimLoop{child: child, cgroup: tree, log: log, grace: grace, self: os.Getpid()}
	defer s.stop()
	for {
		if s.collect() {
			return s.exitCode()
		}
		if s.childDone && !s.tearing {
			s.teardown("backend exited: " + describe(s.status))
		}
		var graceC, killC <-chan time.Time
		if s.graceTimer != nil {
			graceC = s.graceTimer.C
		}
		if s.killTicker != nil {
			killC = s.killTicker.C
		}
		select {
		case <-sigchld:
		case sig := <-signals:
			if !s.tearing { // during a teardown our own group SIGTERM comes back to us
				s.teardown("signal " + sig.String())
			}
		case r := <-parentGone:
			if !s.tearing {
				s.teardown("parent gone (" + string(r) + ")")
			}
		case <-graceC:
			s.graceTimer = nil
			s.log.Info("grace period over; killing what is left")
			s.kill()
		case <-killC:
			s.killTree()
		}
	}
}

// collect waits for every exited child and reports whether none is left.
func (s *shimLoop) collect() bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.ECHILD:
			return true
		case err != nil:
			s.log.Error("wait4", "err", err)
			return false
		case pid == 0:
			return false
		case pid == s.child.PID:
			s.status, s.childDone = ws, true
		}
	}
}

// teardown sends SIGTERM to the whole tree at once and arms the grace timer
// that leads to SIGKILL. The tree is walked and every descendant pinned with
// a pidfd first, while nothing is dying yet and the walk is cheap; then the
// group signal (atomic: it also catches children forked this instant) and
// the pidfd signals to those outside the group go out back to back.
func (s *shimLoop) teardown(why string) {
	s.tearing = true
	// Our own group: we lead it and are alive, so the id is pinned. The
	// SIGTERM reaches us too and is ignored above.
	s.tree = &proc.Teardown{Root: s.self, Group: s.self, Trace: traceTeardown}
	if s.cgroup != nil {
		// The tree listed in one read, not walked, and killed in one
		// write to cgroup.kill.
		s.tree.Members, s.tree.Held, s.tree.KillAll = s.cgroup.Members, s.cgroup.Holds, s.cgroup.Kill
	}
	if _, err := s.tree.Term(); err != nil {
		s.log.Warn("SIGTERM the tree", "err", err)
	}
	s.log.Info("tearing down the backend tree", "why", why, "grace", s.grace)
	s.graceTimer = time.NewTimer(s.grace)
}

// traceTeardown traces the teardown's signals under the shim's event names:
// "all" is the cgroup's one write.
func traceTeardown(event, detail string) {
	if detail == "all" {
		detail = "cgroup"
	}
	trace(event, detail)
}

// kill ends what is left of the tree. With a cgroup, one write to
// cgroup.kill takes every member at once, a child forked this instant
// included, so nothing needs a second look; the tree walk that follows only
// reaches a descendant that left the cgroup. Without one, or when that
// write fails, the walk is repeated every killRepeat until the tree is
// empty.
func (s *shimLoop) kill() {
	err := s.tree.Kill()
	walkOnly := s.cgroup == nil || errors.Is(err, proc.ErrKillAll)
	if err != nil {
		s.log.Warn("SIGKILL the tree", "err", err)
	}
	if walkOnly {
		s.killTicker = time.NewTicker(killRepeat)
	}
}

// killTree pins and SIGKILLs every member of our tree again: every
// descendant (by parent links; as a subreaper we inherit the orphans, so
// the chain is never broken) and every member of our group, even one that
// joined it without descending from us. Never the shim itself, never
// anything outside its tree.
func (s *shimLoop) killTree() {
	if err := s.tree.Kill(); err != nil {
		s.log.Warn("SIGKILL the tree", "err", err)
	}
}

// stop releases what the teardown holds: its timers and pinned handles.
func (s *shimLoop) stop() {
	if s.tree != nil {
		s.tree.Close()
	}
	if s.graceTimer != nil {
		s.graceTimer.Stop()
	}
	if s.killTicker != nil {
		s.killTicker.Stop()
	}
}

// exitCode is the backend's status in shell form: its code, or 128+signal.
func (s *shimLoop) exitCode() int {
	if !s.childDone {
		return 1
	}
	if s.status.Signaled() {
		return 128 + int(s.status.Signal())
	}
	return s.status.ExitStatus()
}

func describe(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exit code %d", ws.ExitStatus())
}

// containTree makes the shim a child subreaper (Linux), so orphaned
// descendants (a backend's children after it died, MCP servers that called
// setsid) reparent to us instead of init and the tree stays reachable and
// collectable. macOS has none: orphans go to launchd, and the shim signals its
// group and every descendant it can see by parent links before they are
// orphaned.
func containTree(*treeHold) error { return proc.SetChildSubreaper(true) }
