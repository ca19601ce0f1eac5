package handoff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/platform/proc"
)

// Old's side of a handoff: check and start the successor, hand it the
// backends (adopt) or let it boot anew (restart), and commit.

// Handoff hands this instance over to the binary args.To. It returns once
// the successor answers on the control socket; on an error before the
// commit, this instance is still in charge with its backends. A non-nil
// Successor means it owns the backends, with or without an error (one met
// after its commit).
func (s *Sender) Handoff(ctx context.Context, args protocol.HandoffArgs) (succ *Successor, _ *protocol.HandoffResult, err error) {
	defer func() { // the launcher log says why, whoever asked (window, tray, CLI, update)
		if err != nil {
			s.cfg.Logger.Error("handoff failed", "to", args.To, "mode", cmp.Or(args.Mode, protocol.HandoffRestart),
				"new_instance_in_charge", succ != nil, "err", err)
		}
	}()
	if !s.running.TryLock() {
		return nil, nil, fmt.Errorf("%w: a handoff is already under way", errkind.ErrBusy)
	}
	defer s.running.Unlock()
	timeout := time.Duration(args.TimeoutNS)
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	if args.To == "" { // apply the update a package upgrade put on disk
		exe, ok := s.launcher.NewExecutable()
		if !ok {
			return nil, nil, fmt.Errorf("%w: no --to, and this instance's executable has not changed on disk: nothing to apply", errkind.ErrRefused)
		}
		args.To = exe
	}
	to, err := checkSuccessor(ctx, args.To)
	if err != nil {
		return nil, nil, err
	}
	args.Mode = s.modeFor(args.Mode)
	switch args.Mode {
	case protocol.HandoffAdopt:
		succ, err = s.adopt(ctx, to)
	case protocol.HandoffRestart:
		succ, err = s.restart(ctx, to)
	default:
		return nil, nil, fmt.Errorf("unknown handoff mode %q (restart or adopt)", args.Mode)
	}
	if succ == nil {
		return nil, nil, err
	}
	return succ, &protocol.HandoffResult{Mode: args.Mode, NewPID: succ.PID(), ElapsedMS: float64(time.Since(start).Microseconds()) / 1000}, err
}

// modeFor is the mode a handoff asked for runs in: restart for none, and
// restart where adopt could not keep the backends (canAdopt says why: on
// Windows, an instance that could not make its job at start has none to
// hand down, and a successor refuses every backend outside the job it
// joins), so an update or a relaunch still goes through.
func (s *Sender) modeFor(asked protocol.HandoffMode) protocol.HandoffMode {
	switch asked {
	case "":
		return protocol.HandoffRestart
	case protocol.HandoffAdopt:
		if err := canAdopt(s.cfg.LauncherJob); err != nil {
			s.cfg.Logger.Warn("handoff: the backends cannot be handed over; restarting them instead", "why", err)
			return protocol.HandoffRestart
		}
	}
	return asked
}

// Relaunch hands this instance over to a new run of its own executable,
// which reads the settings saved since this one started. With keepBackends
// the backends keep running (an adopt handoff);
// without, they are stopped first and the new instance starts them anew, as
// a setting given to a backend as it starts (its grace period, its command)
// needs. Once the new instance serves, this one is handed over (HandedOff
// closes).
func (s *Sender) Relaunch(ctx context.Context, keepBackends bool) (*protocol.HandoffResult, error) {
	mode := protocol.HandoffRestart
	if keepBackends {
		mode = protocol.HandoffAdopt
	}
	succ, res, err := s.Handoff(ctx, protocol.HandoffArgs{To: s.cfg.Exe, Mode: mode, TimeoutNS: int64(2 * time.Minute)})
	if succ != nil { // the new instance owns the backends, error or not
		s.Finish()
	}
	return res, err
}

// restart: tear down, let go, start the successor, wait for it. On
// failure, take everything back and start the backends again.
func (s *Sender) restart(ctx context.Context, to string) (*Successor, error) {
	if err := s.launcher.StopBackends(ctx); err != nil {
		return nil, s.resume(fmt.Errorf("handoff: %w", err))
	}
	s.launcher.LetGo()
	succ, err := s.start(to, nil, nil, []string{fmt.Sprintf("%s=%s", EnvWait, 30*time.Second)})
	if err == nil {
		if err = s.waitRunning(ctx, succ); err == nil {
			return succ, nil
		}
		succ.Stop()
	}
	return nil, s.resume(err)
}

// resume takes the state dir back after a failed restart-mode handoff and
// starts the backends again. It returns the handoff's error, with what the
// resume itself met.
func (s *Sender) resume(cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.launcher.TakeBack(ctx); err != nil {
		return fmt.Errorf("%w; and %w", cause, err)
	}
	s.launcher.StartBackends(ctx)
	return fmt.Errorf("%w; this instance is still in charge and restarted its backends", cause)
}

// adopt: hand the running backends to a successor without stopping them.
// Nothing changes here until the successor commits. After the commit the
// successor is returned even with an error (errCommitted).
func (s *Sender) adopt(ctx context.Context, to string) (*Successor, error) {
	stateR, stateW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("handoff: state pipe: %w", err)
	}
	defer stateW.Close()
	in := newInheritance()
	defer in.release()
	args, state, err := s.pass(ctx, in, stateR)
	if err != nil {
		return nil, err
	}
	succ, err := s.start(to, args, in, nil)
	in.release() // the successor has its copies (or failed to start)
	if err != nil {
		return nil, err
	}
	s.awaiting.Store(succ)
	defer s.awaiting.Store(nil)
	if err := Write(stateW, state); err != nil {
		succ.abort()
		return nil, err
	}
	stateW.Close()
	if err := s.awaitCommit(ctx, succ); err != nil {
		return nil, err
	}
	// Committed: the backends are the successor's. Whatever happens now,
	// this instance exits once it has answered.
	if err := s.waitRunning(ctx, succ); err != nil {
		return succ, errCommitted{fmt.Errorf("%w (after it had taken the backends over)", err)}
	}
	return succ, nil
}

// pass lays out what an adopt-mode successor inherits (see wire.go): the
// state pipe's read end (given away), the launcher's job where there is
// one, and every backend's files. It returns the successor's extra
// arguments and the state to send.
func (s *Sender) pass(ctx context.Context, in *inheritance, stateR *os.File) ([]string, State, error) {
	stateNum, err := in.file(stateR, true)
	if err != nil {
		return nil, State{}, err
	}
	args := []string{AdoptFDArg(stateNum)}
	job, err := in.job(s.cfg.LauncherJob.Handle())
	if err != nil {
		return nil, State{}, err
	}
	if job != 0 {
		args = append(args, AdoptJobArg(job))
	}
	state, err := s.state(ctx, in)
	return args, state, err
}

// awaitCommit waits for the successor's commit. An error means it did not
// commit and never will: the backends are still ours.
func (s *Sender) awaitCommit(ctx context.Context, succ *Successor) error {
	select {
	case <-succ.committed:
	case <-succ.exited:
		if succ.phase.CompareAndSwap(phasePending, phaseAborted) {
			return fmt.Errorf("handoff: the new instance exited before taking over (%v); see %s; nothing was changed",
				succ.cmd.ProcessState, s.launcherLog())
		}
		<-succ.committed // it committed before it died: the commit runs to its end
	case <-ctx.Done():
		if succ.phase.CompareAndSwap(phasePending, phaseAborted) {
			succ.abort()
			return errors.New("handoff: the new instance did not take over in time; nothing was changed")
		}
		<-succ.committed // committing at this very moment: too late to take back
	}
	return nil
}

// state describes every backend to the successor, with the files it will
// inherit, passed with in (see wire.go for the layout). Each view's copy
// of its tree's job is given to in, closed with it, whether or not it is
// passed.
func (s *Sender) state(ctx context.Context, in *inheritance) (State, error) {
	all, err := s.launcher.Views(ctx)
	for _, v := range all {
		in.own(v.Job)
	}
	if err != nil {
		return State{}, fmt.Errorf("handoff: %w", err)
	}
	var views []View
	for _, v := range all {
		if v.External || (v.Remote && v.RemoteHandover == nil) {
			continue
		}
		if v.Remote {
			views = append(views, v) // claimed by the successor (newState)
			continue
		}
		if !v.ViaShim {
			return State{}, fmt.Errorf("handoff: %w: adopt mode needs the watchdog shim (this instance runs with --no-shim)", errkind.ErrRefused)
		}
		views = append(views, v)
	}
	return newState(s.cfg.Self, s.cfg.Nonce, views, in)
}

// Commit is old's side of the switch: the successor that was started (and
// only it) asks; old stops supervising without teardown and lets go of the
// socket and the locks. From the answer on, the backends are the
// successor's.
func (s *Sender) Commit(args protocol.CommitArgs) error {
	succ := s.awaiting.Load()
	if succ == nil || succ.PID() != args.PID {
		return fmt.Errorf("%w: no handoff to this process is under way", errkind.ErrRefused)
	}
	if err := proc.Check(proc.Identity{PID: args.PID, Start: args.Start}); err != nil {
		return fmt.Errorf("handoff commit: %w", err)
	}
	if !succ.phase.CompareAndSwap(phasePending, phaseCommitting) {
		return fmt.Errorf("handoff commit: %w: the handoff was given up; this instance stays in charge", errkind.ErrRefused)
	}
	// Past this point there is no way back: every supervisor lets go, even
	// if one of them fails to answer.
	s.launcher.Detach()
	s.launcher.LetGo()
	close(succ.committed)
	return nil
}

// HandleControl answers the control operations of a handoff: the handoff
// itself and the successor's commit. Once the successor owns the backends
// (success, or an error after the commit), the instance is handed over
// after the answer is written.
func (s *Sender) HandleControl(ctx context.Context, req control.Request) (any, error) {
	switch req.Op {
	case protocol.OpHandoff.Name:
		args, err := protocol.OpHandoff.Args(req)
		if err != nil {
			return nil, err
		}
		_, res, err := s.Handoff(ctx, args)
		var committed errCommitted
		if err == nil || errors.As(err, &committed) {
			return protocol.OpHandoff.AnswerThen(res, err, s.Finish)
		}
		return nil, err
	case protocol.OpHandoffCommit.Name:
		args, err := protocol.OpHandoffCommit.Args(req)
		if err != nil {
			return nil, err
		}
		return protocol.OpHandoffCommit.Answer(protocol.CommitResult{Committed: true}, s.Commit(args))
	}
	return nil, fmt.Errorf("%w %q", errkind.ErrUnknownOp, req.Op)
}
