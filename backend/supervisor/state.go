package supervisor

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
)

// The Supervisor's state machine: the table of legal moves, and the
// published status, whose move is the one way its state changes, checking
// the table before it acts.

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

// published is a backend's status as the window and the CLI read it: the
// state, changed only through move (by the Supervisor's goroutine), and
// what describes the run in it.
type published struct {
	name   string
	log    *slog.Logger
	notify func(st model.BackendStatus, entered bool) // told about every change

	mu sync.Mutex // guards st
	st model.BackendStatus
	// shownTree is the last tree sample the window was told of: a sample
	// is compared with it, not with the previous one, so that memory
	// growing by small steps is still shown once it grew by a tenth. Owned
	// by the Supervisor's goroutine.
	shownTree *leakguard.TreeSample
}

// snapshot is a copy of the status as it is.
func (p *published) snapshot() model.BackendStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st
}

// state is the current state. Only the Supervisor's goroutine changes it,
// so its answer holds for that goroutine until it moves.
func (p *published) state() model.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.State
}

// allow checks, before anything is done, that the table allows every
// state a step may end in from the current one (a launch ends in
// starting, or in failed or restarting when the spawn fails). Staying in
// the current state is always allowed.
func (p *published) allow(tos ...model.State) error {
	from := p.state()
	for _, to := range tos {
		if to == from {
			continue
		}
		if err := checkTransition(from, to); err != nil {
			p.log.Error("state machine", "err", err)
			return fmt.Errorf("backend %s: %w", p.name, err)
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
func (p *published) move(to model.State, act func() bool, edit func(*model.BackendStatus)) error {
	if err := p.allow(to); err != nil {
		return err
	}
	if act != nil && !act() {
		return nil
	}
	p.mu.Lock()
	entered := to != p.st.State
	if entered {
		p.log.Info("state", "state", to)
	}
	p.st.State = to
	if edit != nil {
		edit(&p.st)
	}
	st := p.st
	p.mu.Unlock()
	p.notify(st, entered)
	return nil
}

// edit changes the status without a move, and publishes it.
func (p *published) edit(fn func(*model.BackendStatus)) {
	_ = p.move(p.state(), nil, fn) // staying put is always allowed
}

// publishTree keeps the sample in the status, and tells the window only
// when something a person would notice changed: the processes, the
// warnings, or the memory by more than a tenth. At rest, nothing is sent:
// the status (and `status --json`) still has each sample, its SampledAt
// saying when the tree was last checked and its ChangedAt since when it
// looks the same, so the page can say "unchanged since" honestly.
func (p *published) publishTree(ts *leakguard.TreeSample) {
	p.mu.Lock()
	if p.st.Tree == nil {
		p.shownTree = nil // the window was told there is no tree
	}
	changed := treeChanged(p.shownTree, ts)
	ts.ChangedAt = ts.SampledAt
	if !changed {
		ts.ChangedAt = p.shownTree.ChangedAt
		p.st.Tree = ts
	}
	p.mu.Unlock()
	if changed {
		p.shownTree = ts
		p.edit(func(st *model.BackendStatus) { st.Tree = ts })
	}
}

func treeChanged(old, now *leakguard.TreeSample) bool {
	if old == nil || now == nil {
		return old != now
	}
	if old.Count != now.Count || len(old.Warnings) != len(now.Warnings) {
		return true
	}
	for i := range old.Processes {
		if old.Processes[i].PID != now.Processes[i].PID {
			return true
		}
	}
	for i := range old.Warnings {
		if old.Warnings[i] != now.Warnings[i] {
			return true
		}
	}
	diff := now.RSSBytes - old.RSSBytes
	return diff*10 > old.RSSBytes || -diff*10 > old.RSSBytes
}

// showConnection shows a remote run's connection as it is now (its state,
// latency), publishing only a change a person would notice: latency
// within a tenth, or a millisecond, is not one. nil (a run with no
// connection) shows nothing.
func (p *published) showConnection(now *model.RemoteStatus) {
	if now == nil {
		return
	}
	p.mu.Lock()
	old := p.st.Remote
	p.mu.Unlock()
	if old != nil && sameRemote(*old, *now) {
		return
	}
	p.edit(func(st *model.BackendStatus) { st.Remote = now })
}

func sameRemote(a, b model.RemoteStatus) bool {
	la, lb := a.LatencyMS, b.LatencyMS
	a.LatencyMS, b.LatencyMS = 0, 0
	na, nb := a.NextAttempt, b.NextAttempt
	a.NextAttempt, b.NextAttempt = nil, nil
	if a != b || (na == nil) != (nb == nil) || (na != nil && !na.Equal(*nb)) {
		return false
	}
	d := la - lb
	return (d < 1 && d > -1) || (d*10 < lb && -d*10 < lb)
}
