package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/internal/proc"
	"hermes-desktop/lockfile"
	"hermes-desktop/watchdog"
)

// An update is a handoff from the running instance (old) to a new binary
// (new), so that no backend is orphaned or duplicated:
//
//   - restart: old tears its backends down (records removed), lets go of its
//     locks and socket, starts new detached and exits once new answers on
//     the control socket. New boots normally (reap, spawn).
//   - adopt: the backends keep running. Old starts new with the lifeline
//     write ends and the output pipes inherited and the handoff state on a
//     pipe. New verifies each backend, then commits over old's control
//     socket; old stops supervising without teardown and lets go; new takes
//     the locks, rewrites the records to name itself, tells each shim its
//     new owner down the lifeline, and listens. Old exits once new answers.
//
// Before the commit, a failure leaves old in charge with its backends
// untouched; after it, old exits whatever happens, and a later boot reap
// removes what a dead successor would leave.

// HandoffMode selects how the successor takes over.
type HandoffMode string

// Handoff modes.
const (
	HandoffRestart HandoffMode = "restart"
	HandoffAdopt   HandoffMode = "adopt"
)

// EnvHandoffWait tells a restart-mode successor how long to wait for the
// single-instance lock its predecessor is releasing.
const EnvHandoffWait = "HERMES_DESKTOP_HANDOFF_WAIT"

// HandoffArgs are the arguments of the handoff operation.
type HandoffArgs struct {
	To   string      `json:"to"`
	Mode HandoffMode `json:"mode"`
	// TimeoutNS bounds the whole handoff; 0 means one minute.
	TimeoutNS int64 `json:"timeout_ns,omitempty"`
}

// HandoffResult is what a successful handoff reports.
type HandoffResult struct {
	Mode      HandoffMode `json:"mode"`
	NewPID    int         `json:"new_pid"`
	ElapsedMS float64     `json:"elapsed_ms"`
}

// HandedOff is closed once a successor owns everything: the launcher must
// exit without tearing anything down.
func (l *Launcher) HandedOff() <-chan struct{} { return l.handedOff }

// errCommitted wraps an error met after the successor committed: this
// instance must exit all the same.
type errCommitted struct{ error }

func (e errCommitted) Unwrap() error { return e.error }

// Handoff hands this instance over to the binary args.To. It returns once
// the successor answers on the control socket; on an error before the
// commit, this instance is still in charge with its backends (an
// errCommitted error means the successor owns them anyway).
func (l *Launcher) Handoff(ctx context.Context, args HandoffArgs) (*HandoffResult, error) {
	if !l.handoffMu.TryLock() {
		return nil, fmt.Errorf("%w: a handoff is already under way", control.ErrBusy)
	}
	defer l.handoffMu.Unlock()
	timeout := time.Duration(args.TimeoutNS)
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	to, err := checkSuccessor(ctx, args.To)
	if err != nil {
		return nil, err
	}
	var pid int
	switch args.Mode {
	case HandoffAdopt:
		pid, err = l.handoffAdopt(ctx, to)
	case HandoffRestart, "":
		args.Mode = HandoffRestart
		pid, err = l.handoffRestart(ctx, to)
	default:
		return nil, fmt.Errorf("unknown handoff mode %q (restart or adopt)", args.Mode)
	}
	if err != nil {
		return nil, err
	}
	return &HandoffResult{Mode: args.Mode, NewPID: pid, ElapsedMS: float64(time.Since(start).Microseconds()) / 1000}, nil
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
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("handoff: %s is not an executable file", abs)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, abs, "version").CombinedOutput()
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
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("handoff: start %s: %w", to, err)
	}
	s := &successor{cmd: cmd, exited: make(chan struct{}), committed: make(chan struct{})}
	restoreNonblock(files)                          // starting the child put our copies in blocking mode
	go func() { _ = cmd.Wait(); close(s.exited) }() // our child until we exit: reaped here
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
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		res, err := control.Call(cctx, l.cfg.StateDir, control.Request{Op: control.OpStatus})
		cancel()
		if err == nil {
			var st Status
			if json.Unmarshal(res, &st) == nil && st.Instance.PID == s.cmd.Process.Pid && len(st.Backends) == len(l.cfg.Backends) {
				return nil
			}
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
func (l *Launcher) handoffRestart(ctx context.Context, to string) (int, error) {
	for _, s := range l.sups {
		if err := s.Stop(ctx); err != nil {
			return 0, l.resume(fmt.Errorf("handoff: stop backend %s: %w", s.spec.Name, err))
		}
	}
	l.letGo()
	succ, err := l.startSuccessor(to, nil, nil, []string{fmt.Sprintf("%s=%s", EnvHandoffWait, 30*time.Second)})
	if err == nil {
		if err = l.waitRunning(ctx, succ); err == nil {
			return succ.cmd.Process.Pid, nil
		}
		succ.abortGracefully()
	}
	return 0, l.resume(err)
}

// abortGracefully gives a restart-mode successor, which may have started
// backends, the chance to tear them down before it is killed.
func (s *successor) abortGracefully() {
	_ = s.cmd.Process.Signal(sigTerm)
	select {
	case <-s.exited:
	case <-time.After(DefaultGrace + shimKillMargin):
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
		return fmt.Errorf("%w; and the control socket could not be reopened: %v", cause, err)
	}
	l.serveControl()
	for _, s := range l.sups {
		_ = s.Start(ctx)
	}
	return fmt.Errorf("%w; this instance is still in charge and restarted its backends", cause)
}

// handoffAdopt: hand the running backends to a successor without stopping
// them. Nothing changes here until the successor commits.
func (l *Launcher) handoffAdopt(ctx context.Context, to string) (int, error) {
	if err := adoptSupported(); err != nil {
		return 0, err
	}
	state, files, err := l.handoffState(ctx)
	if err != nil {
		return 0, err
	}
	stateR, stateW, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("handoff: state pipe: %w", err)
	}
	defer stateW.Close()
	succ, err := l.startSuccessor(to, []string{"--adopt-fd", "3"}, append([]*os.File{stateR}, files...), nil)
	stateR.Close()
	if err != nil {
		return 0, err
	}
	l.successor.Store(succ)
	defer l.successor.Store(nil)
	if err := json.NewEncoder(stateW).Encode(state); err != nil {
		succ.abort()
		return 0, fmt.Errorf("handoff: send state: %w", err)
	}
	stateW.Close()
	select {
	case <-succ.committed:
	case <-succ.exited:
		if succ.phase.CompareAndSwap(phasePending, phaseAborted) {
			return 0, fmt.Errorf("handoff: the new instance exited before taking over (%v); see %s; nothing was changed",
				succ.cmd.ProcessState, filepath.Join(l.cfg.StateDir, "logs", "launcher.log"))
		}
		<-succ.committed // it committed before it died: the commit runs to its end
	case <-ctx.Done():
		if succ.phase.CompareAndSwap(phasePending, phaseAborted) {
			succ.abort()
			return 0, fmt.Errorf("handoff: the new instance did not take over in time; nothing was changed")
		}
		<-succ.committed // committing at this very moment: too late to take back
	}
	// Committed: the backends are the successor's. Whatever happens now,
	// this instance exits once it has answered.
	if err := l.waitRunning(ctx, succ); err != nil {
		return 0, errCommitted{fmt.Errorf("%w (after it had taken the backends over)", err)}
	}
	return succ.cmd.Process.Pid, nil
}

// handoffState describes every backend to the successor, with the files it
// will inherit: fd 3 is the state pipe, then lifeline, stdout and stderr of
// each backend in turn.
func (l *Launcher) handoffState(ctx context.Context) (handoffState, []*os.File, error) {
	st := handoffState{From: l.self, FromNonce: l.nonce}
	var files []*os.File
	for _, s := range l.sups {
		inst, err := s.call(ctx, cmdCurrent)
		if err != nil {
			return st, nil, fmt.Errorf("handoff: %w", err)
		}
		if !inst.viaShim {
			return st, nil, fmt.Errorf("handoff: %w: adopt mode needs the watchdog shim (this instance runs with --no-shim)", control.ErrRefused)
		}
		leader := inst.leader
		fd := 3 + 1 + len(files)
		st.Backends = append(st.Backends, handoffBackend{
			Status: s.Status(), Nonce: inst.nonce, Argv: inst.argv, Shim: leader, Backend: inst.backendID,
			Lifeline: fd, Stdout: fd + 1, Stderr: fd + 2,
		})
		files = append(files, inst.shim.lifeline, inst.outR, inst.errR)
	}
	return st, files, nil
}

// handoffState is what old tells new in adopt mode.
type handoffState struct {
	From      proc.Identity    `json:"from"`
	FromNonce string           `json:"from_nonce"`
	Backends  []handoffBackend `json:"backends"`
}

type handoffBackend struct {
	Status  BackendStatus `json:"status"`
	Nonce   string        `json:"nonce"`
	Argv    []string      `json:"argv"`
	Shim    proc.Identity `json:"shim"`
	Backend proc.Identity `json:"backend"`
	// File descriptors in the successor.
	Lifeline int `json:"lifeline_fd"`
	Stdout   int `json:"stdout_fd"`
	Stderr   int `json:"stderr_fd"`
}

// HandoffCommitArgs identify the successor committing.
type HandoffCommitArgs struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

// commit is old's side of the switch: the successor that was started (and
// only it) asks; old stops supervising without teardown and lets go of the
// socket and the locks. From the answer on, the backends are the
// successor's.
func (l *Launcher) commit(ctx context.Context, args HandoffCommitArgs) error {
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
	for _, s := range l.sups {
		if _, err := s.call(context.Background(), cmdDetach); err != nil {
			l.cfg.Logger.Error("handoff commit: detach", "backend", s.spec.Name, "err", err)
		}
	}
	if l.adopterCancel != nil {
		l.adopterCancel()
	}
	l.letGo()
	close(succ.committed)
	return nil
}

// adoptedBackend is a backend a predecessor handed over.
type adoptedBackend struct {
	inst *instance
	prev BackendStatus
}

func (a *adoptedBackend) instance() *instance {
	if a == nil {
		return nil
	}
	return a.inst
}

func (a *adoptedBackend) status() BackendStatus {
	if a == nil {
		return BackendStatus{}
	}
	return a.prev
}

// takeOver is new's side in adopt mode: read the state, verify every
// backend, commit with old, take the locks, make the records and the shims
// name us.
func (l *Launcher) takeOver(statePipe *os.File) error {
	var st handoffState
	_ = statePipe.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := json.NewDecoder(io.LimitReader(statePipe, 1<<20)).Decode(&st); err != nil {
		return fmt.Errorf("handoff: read state: %w", err)
	}
	statePipe.Close()
	for _, b := range st.Backends {
		for _, id := range []proc.Identity{b.Shim, b.Backend} {
			if err := proc.Check(id); err != nil {
				return fmt.Errorf("handoff: backend %s: %w", b.Status.Name, err)
			}
		}
	}
	var err error
	if l.ownerLock, err = lockfile.AcquireOwner(l.cfg.StateDir, l.nonce); err != nil {
		return err
	}
	args, _ := json.Marshal(HandoffCommitArgs{PID: l.self.PID, Start: l.self.Start})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := control.Call(ctx, l.cfg.StateDir, control.Request{Op: control.OpHandoffCommit, Args: args}); err != nil {
		return fmt.Errorf("handoff: commit: %w", err)
	}
	// From here on the backends are ours: the predecessor exits.
	if l.instLock, err = lockfile.AcquireWait(ctx, filepath.Join(l.cfg.StateDir, lockfile.InstanceLockName)); err != nil {
		return fmt.Errorf("handoff: take the instance lock: %w", err)
	}
	l.adopted = map[string]*adoptedBackend{}
	for _, b := range st.Backends {
		inst, err := l.adoptBackend(b)
		if err != nil {
			l.cfg.Logger.Error("handoff: could not adopt a backend; its shim will tear it down", "backend", b.Status.Name, "err", err)
			continue
		}
		l.adopted[b.Status.Name] = &adoptedBackend{inst: inst, prev: b.Status}
	}
	return nil
}

// adoptBackend rewrites a backend's record to name us, takes its inherited
// pipes, and tells its shim who its owner is now.
func (l *Launcher) adoptBackend(b handoffBackend) (*instance, error) {
	var spec *Spec
	for i := range l.cfg.Backends {
		if l.cfg.Backends[i].Name == b.Status.Name {
			spec = &l.cfg.Backends[i]
		}
	}
	lifeline := InheritFile(b.Lifeline, "lifeline")
	outR := InheritFile(b.Stdout, "stdout")
	errR := InheritFile(b.Stderr, "stderr")
	closeAll := func() {
		lifeline.Close()
		outR.Close()
		errR.Close()
	}
	if spec == nil {
		// The new configuration has no such backend: closing its lifeline,
		// our only copy, makes its shim tear it down.
		closeAll()
		return nil, fmt.Errorf("no backend named %q in this configuration", b.Status.Name)
	}
	rec, err := l.records.Load(b.Nonce)
	if err == nil {
		rec.Owner = lockfile.Owner{Nonce: l.nonce, PID: l.self.PID, Start: l.self.Start}
		err = l.records.Write(rec)
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	inst, err := adoptInstance(spec, b, lifeline, outR, errR, l.backendLog(spec.Name), l.adopter)
	if err != nil {
		return nil, err // adoptInstance closed the files
	}
	if _, err := io.WriteString(lifeline, watchdog.FormatOwner(l.self)); err != nil {
		// Still ours to supervise: when the old owner exits the shim tears
		// down, and the supervisor sees it go and starts a new backend.
		l.cfg.Logger.Error("handoff: could not tell the shim its new owner", "backend", spec.Name, "err", err)
	}
	return inst, nil
}
