package supervisor

import (
	"errors"
	"fmt"
	"slices"

	"hermes-desktop/backend/model"
)

// The Supervisor's state machine: the table of legal moves, and move, the
// one way its state changes, which checks the table before it acts.

// ErrIllegalTransition means a move the state table forbids: the
// supervisor refused it before doing anything. It is always a bug.
var ErrIllegalTransition = errors.New("illegal state change")

// transitions lists the legal moves between different states; staying in
// a state (an edit of its status) is not a move.
var transitions = map[model.State][]model.State{
	model.StateStopped:    {model.StateStarting, model.StateFailed, model.StateRestarting},
	model.StateStarting:   {model.StateReady, model.StateRestarting, model.StateFailed, model.StateStopped, model.StateStarting, model.StateExternal},
	model.StateReady:      {model.StateRestarting, model.StateFailed, model.StateStopped, model.StateStarting},
	model.StateRestarting: {model.StateStarting, model.StateStopped, model.StateFailed},
	model.StateFailed:     {model.StateStarting, model.StateStopped, model.StateRestarting},
	model.StateExternal:   {model.StateStarting, model.StateStopped},
}

// checkTransition says whether the table allows from -> to.
func checkTransition(from, to model.State) error {
	if slices.Contains(transitions[from], to) {
		return nil
	}
	return fmt.Errorf("%w %s -> %s", ErrIllegalTransition, from, to)
}

// state is the current state. Only the run goroutine changes it, so its
// answer holds for that goroutine until it moves.
func (s *Supervisor) state() model.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.State
}

// allow checks, before anything is done, that the table allows every
// state a step may end in from the current one (a launch ends in
// starting, or in failed or restarting when the spawn fails). Staying in
// the current state is always allowed.
func (s *Supervisor) allow(tos ...model.State) error {
	from := s.state()
	for _, to := range tos {
		if to == from {
			continue
		}
		if err := checkTransition(from, to); err != nil {
			s.log.Error("state machine", "err", err)
			return fmt.Errorf("backend %s: %w", s.spec.Name, err)
		}
	}
	return nil
}

// move is the one way the state changes. It checks the move against the
// table first (allow): an illegal one is refused with an error wrapping
// ErrIllegalTransition, and neither act nor edit runs. Then act (nil for
// none) does the move's work; it returns false when it did not get there
// (a spawn that failed moved on to failed or restarting itself), and then
// nothing more is published. Last, edit (nil for none) is applied to the
// status, which is published in the new state.
func (s *Supervisor) move(to model.State, act func() bool, edit func(*model.BackendStatus)) error {
	if err := s.allow(to); err != nil {
		return err
	}
	if act != nil && !act() {
		return nil
	}
	s.mu.Lock()
	entered := to != s.st.State
	if entered {
		s.log.Info("state", "state", to)
	}
	s.st.State = to
	if edit != nil {
		edit(&s.st)
	}
	st := s.st
	s.mu.Unlock()
	s.notify(st, entered)
	return nil
}

// edit changes the status without a move, and publishes it.
func (s *Supervisor) edit(fn func(*model.BackendStatus)) {
	_ = s.move(s.state(), nil, fn) // staying put is always allowed
}
