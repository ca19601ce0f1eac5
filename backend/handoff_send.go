package backend

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

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/handoffwire"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
	"hermes-desktop/internal/proc"
	"hermes-desktop/lockfile"
)

// Old's side of a handoff: check and start the successor, hand it the
// backends (adopt) or let it boot anew (restart), and commit.

// Handoff hands this instance over to the binary args.To. It returns once
// the successor answers on the control socket; on an error before the
// commit, this instance is still in charge with its backends (an
// errCommitted error means the successor owns them anyway).
func (l *Launcher) Handoff(ctx context.Context, args handoffwire.Args) (*handoffwire.Result, error) {
	_, res, err := l.handoff(ctx, args)
	return res, err
}

// handoff is Handoff, also returning the successor it started (our child
// until we exit), for an update to watch.
func (l *Launcher) handoff(ctx context.Context, args handoffwire.Args) (*successor, *handoffwire.Result, error) {
	if !l.handoffMu.TryLock() {
		return nil, nil, fmt.Errorf("%w: a handoff is already under way", control.ErrBusy)
	}
	defer l.handoffMu.Unlock()
	timeout := time.Duration(args.TimeoutNS)
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	if args.To == "" { // apply the update a package upgrade put on disk
		exe, ok := l.upd.NewExecutable()
		if !ok {
			return nil, nil, fmt.Errorf("%w: no --to, and this instance's executable has not changed on disk: nothing to apply", control.ErrRefused)
		}
		args.To = exe
	}
	to, err := checkSuccessor(ctx, args.To)
	if err != nil {
		return nil, nil, err
	}
	var succ *successor
	switch args.Mode {
	case handoffwire.ModeAdopt:
		succ, err = l.handoffAdopt(ctx, to)
	case handoffwire.ModeRestart, "":
		args.Mode = handoffwire.ModeRestart
		succ, err = l.handoffRestart(ctx, to)
	default:
		return nil, nil, fmt.Errorf("unknown handoff mode %q (restart or adopt)", args.Mode)
	}
	if succ == nil {
		return nil, nil, err
	}
	return succ, &handoffwire.Result{Mode: args.Mode, NewPID: succ.cmd.Process.Pid, ElapsedMS: float64(time.Since(start).Microseconds()) / 1000}, err
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

// startSuccessor starts the new binary with our command line plus extra
// arguments, in a session of its own (it outlives us), with its output in
// the launcher log.
func (l *Launcher) startSuccessor(to string, extraArgs []string, files []*os.File, env []string) (*successor, error) {
	args := append([]string(nil), l.cfg.Args...)
	if len(args) == 0 {
		args = []string{"run"} // started with no arguments: the window
	}
	args = append(args, extraArgs...)
	cmd := exec.Command(to, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.ExtraFiles = files
	cmd.SysProcAttr = successorAttr()
	logPath := filepath.Join(l.cfg.StateDir, "logs", "launcher.log")
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
	s := &successor{cmd: cmd, exited: make(chan struct{}), committed: make(chan struct{})}
	restoreNonblock(files) // starting the child put our copies in blocking mode
	go func() {            // our child until we exit: reaped here
		_ = cmd.Wait()
		waited()
		close(s.exited)
	}()
	return s, nil
}

// successor is a new instance being started by a handoff.
type successor struct {
	cmd       *exec.Cmd
	exited    chan struct{}
	committed chan struct{} // closed by the commit handler (adopt mode)
	// phase moves once from pending to committing (the commit handler won)
	// or to aborted (the handoff gave up first): never both.
	phase atomic.Int32
}

// PID is the successor's process ID.
func (s *successor) PID() int { return s.cmd.Process.Pid }

// Exited is closed once the successor has been reaped.
func (s *successor) Exited() <-chan struct{} { return s.exited }

// ExitState says how the successor ended, once Exited is closed.
func (s *successor) ExitState() *os.ProcessState { return s.cmd.ProcessState }

// Successor phases.
const (
	phasePending int32 = iota
	phaseCommitting
	phaseAborted
)

// abort stops a successor that failed before it owned anything: it is our
// child and owns no backend, so SIGKILL leaves nothing behind (in restart
// mode it may have started backends: their shims see it die and tear down).
func (s *successor) abort() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// waitRunning waits until the successor answers status on the control
// socket with all its backends listed, or exits, or ctx ends.
func (l *Launcher) waitRunning(ctx context.Context, s *successor) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		st, err := model.StatusOf(ctx, l.cfg.StateDir)
		if err == nil && st.Instance.PID == s.cmd.Process.Pid && len(st.Backends) == len(l.cfg.Backends) {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("handoff: the new instance exited (%v); see %s", s.cmd.ProcessState, filepath.Join(l.cfg.StateDir, "logs", "launcher.log"))
		case <-ctx.Done():
			return fmt.Errorf("handoff: the new instance did not come up: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// finishHandoff marks the launcher as handed over; main exits without
// teardown once the handoff's answer is written.
func (l *Launcher) finishHandoff() {
	l.handOnce.Do(func() { close(l.handedOff) })
}

// handoffRestart: tear down, let go, start the successor, wait for it. On
// failure, take everything back and start the backends again.
func (l *Launcher) handoffRestart(ctx context.Context, to string) (*successor, error) {
	for _, s := range l.supervisors() {
		if err := s.Stop(ctx); err != nil {
			return nil, l.resume(fmt.Errorf("handoff: stop backend %s: %w", s.spec.Name, err))
		}
	}
	l.letGo()
	succ, err := l.startSuccessor(to, nil, nil, []string{fmt.Sprintf("%s=%s", handoffwire.EnvWait, 30*time.Second)})
	if err == nil {
		if err = l.waitRunning(ctx, succ); err == nil {
			return succ, nil
		}
		succ.Stop()
	}
	return nil, l.resume(err)
}

// Stop gives a successor, which may have started backends (restart mode),
// the chance to tear them down before it is killed.
func (s *successor) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(DefaultGrace + instance.ShimKillMargin):
		s.abort()
	}
}

// letGo releases what a successor needs: the socket and both locks.
func (l *Launcher) letGo() {
	_ = l.ctl.StopListening()
	_ = l.ownerLock.Release()
	_ = l.instLock.Release()
}

// resume takes the state dir back after a failed restart-mode handoff and
// starts the backends again. It returns the handoff's error, with what the
// resume itself met.
func (l *Launcher) resume(cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	if l.instLock, err = lockfile.AcquireWait(ctx, filepath.Join(l.cfg.StateDir, lockfile.InstanceLockName)); err != nil {
		return fmt.Errorf("%w; and the state dir could not be taken back: %v", cause, err)
	}
	if l.ownerLock, err = lockfile.AcquireOwner(l.cfg.StateDir, l.nonce); err != nil {
		return fmt.Errorf("%w; and the owner lock could not be taken back: %v", cause, err)
	}
	if l.ctl, err = control.Listen(l.cfg.StateDir, l.cfg.Logger); err != nil {
		return fmt.Errorf("%w; and the control channel could not be reopened: %v", cause, err)
	}
	l.serveControl()
	for _, s := range l.supervisors() {
		_ = s.Start(ctx)
	}
	return fmt.Errorf("%w; this instance is still in charge and restarted its backends", cause)
}

// handoffAdopt: hand the running backends to a successor without stopping
// them. Nothing changes here until the successor commits. After the
// commit the successor is returned even with an error (errCommitted).
func (l *Launcher) handoffAdopt(ctx context.Context, to string) (*successor, error) {
	if err := adoptSupported(); err != nil {
		return nil, err
	}
	state, files, err := l.handoffState(ctx)
	if err != nil {
		return nil, err
	}
	stateR, stateW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("handoff: state pipe: %w", err)
	}
	defer stateW.Close()
	succ, err := l.startSuccessor(to, []string{handoffwire.AdoptFDArg()}, append([]*os.File{stateR}, files...), nil)
	stateR.Close()
	if err != nil {
		return nil, err
	}
	l.successor.Store(succ)
	defer l.successor.Store(nil)
	if err := handoffwire.Write(stateW, state); err != nil {
		succ.abort()
		return nil, err
	}
	stateW.Close()
	select {
	case <-succ.committed:
	case <-succ.exited:
		if succ.phase.CompareAndSwap(phasePending, phaseAborted) {
			return nil, fmt.Errorf("handoff: the new instance exited before taking over (%v); see %s; nothing was changed",
				succ.cmd.ProcessState, filepath.Join(l.cfg.StateDir, "logs", "launcher.log"))
		}
		<-succ.committed // it committed before it died: the commit runs to its end
	case <-ctx.Done():
		if succ.phase.CompareAndSwap(phasePending, phaseAborted) {
			succ.abort()
			return nil, fmt.Errorf("handoff: the new instance did not take over in time; nothing was changed")
		}
		<-succ.committed // committing at this very moment: too late to take back
	}
	// Committed: the backends are the successor's. Whatever happens now,
	// this instance exits once it has answered.
	if err := l.waitRunning(ctx, succ); err != nil {
		return succ, errCommitted{fmt.Errorf("%w (after it had taken the backends over)", err)}
	}
	return succ, nil
}

// handoffwire.State describes every backend to the successor, with the files it
// will inherit (see handoff_wire.go for the layout).
func (l *Launcher) handoffState(ctx context.Context) (handoffwire.State, []*os.File, error) {
	var views []handoffwire.View
	for _, s := range l.supervisors() {
		v, err := s.handoffView(ctx)
		if err != nil {
			return handoffwire.State{}, nil, fmt.Errorf("handoff: %w", err)
		}
		if v.External {
			continue
		}
		if !v.ViaShim {
			return handoffwire.State{}, nil, fmt.Errorf("handoff: %w: adopt mode needs the watchdog shim (this instance runs with --no-shim)", control.ErrRefused)
		}
		views = append(views, v)
	}
	st, files := handoffwire.NewState(l.self, l.nonce, views)
	return st, files, nil
}

// commit is old's side of the switch: the successor that was started (and
// only it) asks; old stops supervising without teardown and lets go of the
// socket and the locks. From the answer on, the backends are the
// successor's.
func (l *Launcher) commit(ctx context.Context, args handoffwire.CommitArgs) error {
	succ := l.successor.Load()
	if succ == nil || succ.cmd.Process.Pid != args.PID {
		return fmt.Errorf("%w: no handoff to this process is under way", control.ErrRefused)
	}
	if err := proc.Check(proc.Identity{PID: args.PID, Start: args.Start}); err != nil {
		return fmt.Errorf("handoff commit: %w", err)
	}
	if !succ.phase.CompareAndSwap(phasePending, phaseCommitting) {
		return fmt.Errorf("handoff commit: %w: the handoff was given up; this instance stays in charge", control.ErrRefused)
	}
	// Past this point there is no way back: every supervisor lets go, even
	// if one of them fails to answer.
	for _, s := range l.supervisors() {
		if _, err := s.call(context.Background(), cmdDetach); err != nil {
			l.cfg.Logger.Error("handoff commit: detach", "backend", s.spec.Name, "err", err)
		}
	}
	if l.reclaimerCancel != nil {
		l.reclaimerCancel()
	}
	l.letGo()
	close(succ.committed)
	return nil
}
