package proc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// Teardown is the one TERM -> grace -> KILL of this module over a tree:
// the shim's, the boot reaper's, the remote watchdog's, the launcher's. Term sends SIGTERM to the
// group as a whole and once to each member outside it; the grace is waited
// out by End/EndAll or the caller's own loop; Kill pins the tree again
// (children born meanwhile) and sends SIGKILL one by one. Members are
// signalled only through handles opened before their identity was checked
// (PinTree), so a recycled PID is never hit. Pinning walks from Root while
// Root is provably itself (the caller, or a Leader that has not exited): a
// subreaper (the shim) inherits every orphan, so nothing escapes; once
// another caller's Root has exited, its PID may be another process's, and
// Kill walks from the pinned members still running instead (a child forked
// during the grace by a member that outlived Root is found there). On Windows Term reaches nobody one by one
// (ErrNoGracefulStop); Kill ends them. The zero value of each exported
// field says what it means. A Teardown is owned by one goroutine and must
// be closed.
type Teardown struct {
	// Root is the process whose tree is torn down: its descendants and, when
	// it leads a group, the group's members. Root itself is never pinned.
	Root int
	// Leader, when non-nil, is a handle on Root, signalled and waited for
	// with the members. Nil when Root is the caller (the shim) or the caller
	// signals it otherwise. The caller owns it: Close leaves it open.
	Leader *Handle
	// Group is the process group Term signals as a whole; 0 for none. Only
	// a pinned group (see SignalGroup). Kill signals it as a whole only
	// with KillGroup: the caller may be in it (the shim leads its own).
	Group int
	// KillGroup, when true, has Kill send SIGKILL to Group as a whole too,
	// so that a process forked into the group after the last walk is not
	// missed: for a caller outside the group that holds its leader
	// uncollected (the launcher's own child), which pins the group id.
	KillGroup bool
	// Skip, when non-nil, names members never to signal (processes another
	// decision protects).
	Skip func(pid int) bool
	// Members, when non-nil, lists the whole tree at once (its cgroup):
	// Term pins what it lists instead of walking (one read, where the walk
	// cost the shim 1.3 ms before its SIGTERM); Held says whether a listed
	// PID, once its handle is open, is still in the tree. Kill walks anyway:
	// a member may have left the cgroup.
	Members func() ([]int, error)
	Held    func(pid int) bool
	// KillAll, when non-nil, kills every member at once (cgroup.kill: a
	// child forked this instant too), once, before the first Kill's walk.
	// When it fails Kill's error wraps ErrKillAll: the walk alone ended the
	// tree, and a tree that keeps forking needs Kill again.
	KillAll func() error
	// Trace, when non-nil, hears "term-sent" (detail: how many outside the
	// group) and "kill-sent" (detail "all" when KillAll took the tree).
	Trace func(event, detail string)

	pinned  []*Handle
	seen    map[Identity]bool // what pinned holds, so re-pinning adds no duplicate
	termed  bool
	killing bool // Kill has run once: KillAll is not tried again
}

// ErrKillAll means Teardown.KillAll failed: the tree walk alone sent SIGKILL.
var ErrKillAll = errors.New("proc: kill the tree at once")

// Pin adds to what is pinned every descendant of Root and, unless Term
// will signal the group as a whole, every member of Root's group: a batch
// pinned before any is signalled is walked while nothing is dying yet.
// Term pins by itself when nothing is.
func (t *Teardown) Pin() error {
	return t.pin(t.termed || t.Group == 0)
}

// Term sends SIGTERM, once to each process: to Group as a whole (when
// non-zero), then through its handle to the leader and each pinned member
// the group signal did not reach, since a second SIGTERM makes many
// programs abort a graceful shutdown. It returns how many processes were
// signalled one by one. Members that are gone are not errors.
func (t *Teardown) Term() (int, error) {
	var errs []error
	if t.seen == nil {
		errs = append(errs, t.Pin())
	}
	t.termed = true
	n, err := signalOnce(t.Group, t.targets(), syscall.SIGTERM)
	t.trace("term-sent", strconv.Itoa(n)+" outside the group")
	return n, errors.Join(append(errs, err)...)
}

// Kill pins the tree again (children born during the grace, members that
// joined the group) and sends SIGKILL to the leader and every pinned
// member, old and new (one reparented away is still held by its handle).
// A tree that keeps forking needs it again.
func (t *Teardown) Kill() error {
	first := !t.killing
	t.killing = true
	var allErr error
	if first && t.KillAll != nil {
		if allErr = t.KillAll(); allErr == nil {
			t.trace("kill-sent", "all")
		} else {
			allErr = fmt.Errorf("%w: %w", ErrKillAll, allErr)
		}
	}
	err := t.pin(true)
	group := 0
	if t.KillGroup {
		group = t.Group
	}
	_, kerr := signalOnce(group, t.targets(), syscall.SIGKILL)
	if first && (t.KillAll == nil || allErr != nil) {
		t.trace("kill-sent", "")
	}
	return errors.Join(allErr, err, kerr)
}

// End is EndAll of this one tree: it blocks and reports whether it all exited.
func (t *Teardown) End(ctx context.Context, grace time.Duration) bool {
	return EndAll(ctx, grace, t)[0]
}

// EndAll ends trees together: all pinned before any is signalled, SIGTERM
// to each, one shared grace, SIGKILL to each (children born during the
// grace too), then up to KillWait. It reports, per tree, whether all it
// pinned exited; one that could not be signalled shows there. The caller
// closes the trees.
func EndAll(ctx context.Context, grace time.Duration, ts ...*Teardown) []bool {
	for _, t := range ts {
		_ = t.Pin()
	}
	for _, t := range ts {
		_, _ = t.Term()
	}
	graceCtx, cancel := context.WithTimeout(ctx, grace)
	for _, t := range ts {
		t.Wait(graceCtx)
	}
	cancel()
	for _, t := range ts {
		_ = t.Kill()
	}
	killCtx, cancel := context.WithTimeout(ctx, KillWait)
	defer cancel()
	gone := make([]bool, len(ts))
	for i, t := range ts {
		gone[i] = t.Wait(killCtx)
	}
	return gone
}

func (t *Teardown) trace(event, detail string) {
	if t.Trace != nil {
		t.Trace(event, detail)
	}
}

// Wait blocks until the leader and every pinned member have exited or ctx
// ends, and reports whether all did.
func (t *Teardown) Wait(ctx context.Context) bool {
	for _, h := range t.targets() {
		if !h.Wait(ctx) {
			return false
		}
	}
	return true
}

// Alive returns the PIDs of the leader and pinned members still running.
func (t *Teardown) Alive() []int {
	var out []int
	for _, h := range t.targets() {
		if !h.Exited() {
			out = append(out, h.Identity().PID)
		}
	}
	return out
}

// Close releases the pinned members' handles (never Leader's).
func (t *Teardown) Close() {
	CloseAll(t.pinned)
	t.pinned, t.seen = nil, nil
}

// pin adds the tree's members to pinned: the descendants, and with
// withGroup the group's members too (PinTree), minus Skip and minus what is
// pinned already. It walks from Root only while Root is provably the
// process it was (see rootHeld); otherwise from the pinned members still
// running, as each is provably itself while its handle says so.
func (t *Teardown) pin(withGroup bool) error {
	if t.seen == nil {
		t.seen = map[Identity]bool{}
	}
	var hs []*Handle
	var err error
	filtered := false // PinTree has applied Skip and left Root out already
	switch {
	case !t.termed && t.Members != nil && t.Held != nil:
		hs, err = t.pinListed()
	case t.rootHeld():
		if withGroup {
			hs, err = PinTree(t.Root, t.Skip)
			filtered = true
		} else {
			hs, err = PinDescendants(t.Root)
		}
		if !t.rootHeld() {
			// Root ended during the walk: its PID may have gone to another
			// process, whose tree is not ours.
			CloseAll(hs)
			hs, err = t.pinFromMembers()
			filtered = false
		}
	default:
		hs, err = t.pinFromMembers()
	}
	for _, h := range hs {
		id := h.Identity()
		skip := !filtered && (id.PID == t.Root || (t.Skip != nil && t.Skip(id.PID)))
		if skip || t.seen[id] {
			h.Close()
			continue
		}
		t.seen[id] = true
		t.pinned = append(t.pinned, h)
	}
	if err != nil {
		return fmt.Errorf("proc: pin the tree of %d: %w", t.Root, err)
	}
	return nil
}

// rootHeld says whether Root is still the process the teardown is for, so
// that a walk from its PID (its children, its group) finds its tree: it is
// the caller itself (no Leader), or Leader has not exited. A root that is
// not the caller's child is freed as it exits, and its PID can go to
// another process at once.
func (t *Teardown) rootHeld() bool { return t.Leader == nil || !t.Leader.Exited() }

// pinFromMembers pins the descendants of each pinned member still running:
// children born during the grace to a member that outlived Root. A walk
// whose member exited meanwhile is dropped, since that PID may have gone
// to another process.
func (t *Teardown) pinFromMembers() ([]*Handle, error) {
	var out []*Handle
	var errs []error
	for _, m := range slices.Clone(t.pinned) {
		if m.Exited() {
			continue
		}
		hs, err := PinDescendants(m.Identity().PID)
		if m.Exited() {
			CloseAll(hs)
			continue
		}
		out = append(out, hs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// pinListed pins what Members lists, but Root, what Skip protects and what
// Held no longer holds once its handle is open (it exited and its PID went
// to another).
func (t *Teardown) pinListed() ([]*Handle, error) {
	pids, err := t.Members()
	var hs []*Handle
	for _, pid := range pids {
		if pid == t.Root || (t.Skip != nil && t.Skip(pid)) {
			continue
		}
		h, perr := pinPID(pid)
		if perr != nil {
			continue // gone
		}
		if !t.Held(pid) {
			h.Close()
			continue
		}
		hs = append(hs, h)
	}
	return hs, err
}

// targets is the leader, when there is one, then the pinned members.
func (t *Teardown) targets() []*Handle {
	if t.Leader == nil {
		return t.pinned
	}
	return append([]*Handle{t.Leader}, t.pinned...)
}

// signalOnce sends sig to each process of a pinned tree once: to group as
// a whole when group > 0, then through its handle to each process the group
// signal did not reach (outside the group, or all of them when the group
// could not be signalled). It returns how many it signalled one by one.
// Processes that are gone are not errors.
func signalOnce(group int, hs []*Handle, sig syscall.Signal) (int, error) {
	var errs []error
	n := 0
	grouped := false
	if group > 0 {
		err := SignalGroup(group, sig)
		grouped = err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			errs = append(errs, err)
		}
	}
	for _, h := range hs {
		if grouped && h.inGroup(group) {
			continue
		}
		n++
		if err := h.Signal(sig); err != nil && !IsGone(err) {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// inGroup reports whether the process is in group: as a tree walk saw it
// when pinning it, or, for a handle opened otherwise, as it is now.
func (h *Handle) inGroup(group int) bool {
	if h.pgid != 0 {
		return h.pgid == group
	}
	p, err := Stat(h.id.PID)
	return err == nil && p.PGID == group
}
