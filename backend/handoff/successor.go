package handoff

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/logs"
	"hermes-desktop/platform/proc"
)

// Successor is a new instance a handoff started. It is our child until we
// exit: its PID cannot be reused before we collect it.
type Successor struct {
	cmd       *exec.Cmd
	exited    chan struct{}
	committed chan struct{} // closed by the commit handler (adopt mode)
	// phase moves once from pending to committing (the commit handler won)
	// or to aborted (the handoff gave up first): never both.
	phase atomic.Int32
}

// PID is the successor's process ID.
func (s *Successor) PID() int { return s.cmd.Process.Pid }

// Exited is closed once the successor has been collected.
func (s *Successor) Exited() <-chan struct{} { return s.exited }

// ExitState says how the successor ended, once Exited is closed.
func (s *Successor) ExitState() *os.ProcessState { return s.cmd.ProcessState }

// Successor phases.
const (
	phasePending int32 = iota
	phaseCommitting
	phaseAborted
)

// Stop gives a successor, which may have started backends (restart mode),
// the chance to tear them down before it is killed.
func (s *Successor) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(runspec.DefaultGrace + run.ShimKillMargin):
		s.abort()
	}
}

// abort stops a successor that failed before it owned anything: it is our
// child and owns no backend, so SIGKILL leaves nothing behind (in restart
// mode it may have started backends: their shims see it die and tear down).
func (s *Successor) abort() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// checkSuccessor makes sure the new binary runs at all (`version` answers)
// before anything is changed, so a broken update never costs a backend.
func checkSuccessor(ctx context.Context, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("handoff: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("handoff: new binary: %w", err)
	}
	if !fi.Mode().IsRegular() || !executable(abs, fi) {
		return "", fmt.Errorf("handoff: %s is not an executable file", abs)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := proc.CombinedOutputChild(exec.CommandContext(cctx, abs, "version"))
	if err != nil || !strings.HasPrefix(string(out), "hermes-desktop ") {
		return "", fmt.Errorf("handoff: %s does not run (`version` said %q, %v); nothing was changed", abs, strings.TrimSpace(string(out)), err)
	}
	return abs, nil
}

// start starts the new binary with our command line plus extra arguments,
// in a session of its own (it outlives us), with its output in the
// launcher log, inheriting what in passes (nil: nothing). The caller
// releases in once it returns.
func (s *Sender) start(to string, extraArgs []string, in *inheritance, env []string) (*Successor, error) {
	args := append([]string(nil), s.cfg.Args...)
	if len(args) == 0 {
		args = []string{"run"} // started with no arguments: the window
	}
	args = append(args, extraArgs...)
	cmd := exec.Command(to, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = successorAttr()
	if in != nil {
		in.attach(cmd)
	}
	logPath := s.launcherLog()
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("handoff: open %s: %w", logPath, err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	waited, err := proc.StartChild(cmd)
	if err != nil {
		return nil, fmt.Errorf("handoff: start %s: %w", to, err)
	}
	succ := &Successor{cmd: cmd, exited: make(chan struct{}), committed: make(chan struct{})}
	go func() { // our child until we exit: collected here
		_ = cmd.Wait()
		waited()
		close(succ.exited)
	}()
	return succ, nil
}

// launcherLog is where a successor's output goes.
func (s *Sender) launcherLog() string { return logs.LauncherPath(s.cfg.StateDir) }

// waitRunning waits until the successor answers status on the control
// socket, or exits, or ctx ends. Its answer is its word that it has taken
// over with the backends of the settings it read: a launcher serves the
// socket only once a supervisor exists for each of them (Launcher.Start).
// Never a count of ours: a backend added or removed since we started made
// every restart and update wait for a list the successor would never show,
// then roll back.
func (s *Sender) waitRunning(ctx context.Context, succ *Successor) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		st, err := protocol.StatusOf(ctx, s.cfg.StateDir)
		if err == nil && st.Instance.PID == succ.PID() {
			s.cfg.Logger.Info("handoff: the new instance is in charge", "pid", succ.PID(), "backends", len(st.Backends))
			return nil
		}
		select {
		case <-succ.exited:
			return fmt.Errorf("handoff: the new instance exited (%v); see %s", succ.cmd.ProcessState, s.launcherLog())
		case <-ctx.Done():
			return fmt.Errorf("handoff: the new instance did not come up: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// StartFresh starts exe as a restart-mode successor (it waits for the
// state dir, then boots normally) and returns once it serves: a rollback
// that left no instance running starts the old version this way.
func (s *Sender) StartFresh(ctx context.Context, exe string) (*Successor, error) {
	succ, err := s.start(exe, nil, nil, []string{fmt.Sprintf("%s=%s", EnvWait, 30*time.Second)})
	if err != nil {
		return nil, err
	}
	if err := s.waitRunning(ctx, succ); err != nil {
		return nil, fmt.Errorf("the old version did not come up: %w", err)
	}
	return succ, nil
}
