package supervisor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/errkind"
)

// List is the launcher's backends, one supervisor each, in the order the
// user sees them, and the context they run under: it owns the supervisors'
// goroutines. The zero List is empty and runs nothing until RunAll.
type List struct {
	mu     sync.Mutex // guards every field below
	list   []*Supervisor
	ctx    context.Context // the supervisors' parent; nil until RunAll
	cancel context.CancelFunc
}

// Add appends a supervisor, not yet running.
func (sl *List) Add(sup *Supervisor) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.list = append(sl.list, sup)
}

// RunAll starts every supervisor, each with the instance a predecessor
// handed over (from adopted; nil for none).
func (sl *List) RunAll(adopted func(*Supervisor) (run.Process, model.BackendStatus)) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.ctx, sl.cancel = context.WithCancel(context.Background())
	for _, sup := range sl.list {
		inst, prev := adopted(sup)
		sl.runLocked(sup, inst, prev)
	}
}

// runLocked starts sup's goroutine under the list's context, with a cancel
// of its own for remove. Call with mu held, after RunAll.
func (sl *List) runLocked(sup *Supervisor, inst run.Process, prev model.BackendStatus) {
	ctx, cancel := context.WithCancel(sl.ctx)
	sup.cancel = cancel
	go sup.serve(ctx, !sup.spec.Disabled, inst, prev)
}

// AddRunning adds a backend while the launcher runs, and starts it.
func (sl *List) AddRunning(sup *Supervisor) error {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.ctx == nil {
		return fmt.Errorf("%w: the launcher is not running yet", errkind.ErrRefused)
	}
	for _, s := range sl.list {
		if settings.SameName(s.spec.Name, sup.spec.Name) {
			return fmt.Errorf("%w: backend %q: %w", errkind.ErrBadRequest, sup.spec.Name, settings.ErrNameTaken)
		}
	}
	sl.list = append(sl.list, sup)
	sl.runLocked(sup, nil, model.BackendStatus{})
	return nil
}

// Remove takes s off the list and ends its goroutine.
func (sl *List) Remove(s *Supervisor) {
	sl.mu.Lock()
	sl.list = slices.DeleteFunc(sl.list, func(x *Supervisor) bool { return x == s })
	sl.mu.Unlock()
	s.cancel()
}

// StopAll ends every supervisor (each tears its backend down) and waits
// for them.
func (sl *List) StopAll() {
	sl.mu.Lock()
	if sl.cancel != nil {
		sl.cancel()
	}
	sl.mu.Unlock()
	for _, s := range sl.All() {
		<-s.Done()
	}
}

// All is a copy of the list, safe to range over unlocked.
func (sl *List) All() []*Supervisor {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return slices.Clone(sl.list)
}

// Find finds a backend by name; "" means the first.
func (sl *List) Find(name string) (*Supervisor, error) {
	sups := sl.All()
	if name == "" && len(sups) > 0 {
		return sups[0], nil
	}
	var names []string
	for _, s := range sups {
		if s.spec.Name == name {
			return s, nil
		}
		names = append(names, s.spec.Name)
	}
	return nil, fmt.Errorf("%w named %q (backends: %s)", errkind.ErrNoSuchBackend, name, strings.Join(names, ", "))
}
