// Package reclaim takes back the launcher's own orphans: descendants of a
// backend whose watchdog shim died, reparented to the launcher (a Linux
// child subreaper). It stops those with positive evidence of descent (the
// backend's nonce, or a sample of the backend's tree); everything else is
// left alone. It never collects an exit: proc.CollectOrphans, the one loop
// that waits for what nobody here waits for, collects whatever exits; and
// the children we started are proc's registry's (proc.StartChild), never
// orphans.
package reclaim

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/proc"
)

// Reclaimer looks after processes reparented to the launcher. On Linux the
// launcher is a child subreaper, so when a watchdog shim is killed (kill -9
// by a user, the OOM killer), the descendants its backend leaves behind come
// to the launcher instead of init. Those that carry the nonce of one of our
// backends in their environment are torn down (SIGTERM, grace, SIGKILL);
// everything else is left alone. proc.CollectOrphans collects them all. ("Adopt"
// is the handoff mode; taking back our own orphans is "reclaim".)
type Reclaimer struct {
	self  int
	grace time.Duration
	log   *slog.Logger

	mu      sync.Mutex                 // guards nonces, known and watchUntil
	nonces  map[string]bool            // every backend nonce this launcher used
	known   map[string][]proc.Identity // per backend nonce: the descendants last sampled
	helper  string                     // HERMES_DESKTOP_HELPER value of our own helpers
	orphans map[int]*orphan            // owned by the run goroutine
	wake    chan struct{}              // pokes the run goroutine
	// watchUntil: orphans are looked for on a slow tick until then (a child
	// of ours died lately); guarded by mu.
	watchUntil time.Time
	table      func() (proc.Table, error)
}

// orphan is a reparented process the Reclaimer holds.
type orphan struct {
	id proc.Identity
	// stop is its TERM -> grace -> KILL.
	stop *proc.Stopper
}

// HelperEnv marks processes the launcher starts for the user (the URL and
// folder opener) and everything they leave behind, such as a browser that
// xdg-open started: the launcher may collect them, never signal them.
const HelperEnv = "HERMES_DESKTOP_HELPER"

// New returns a Reclaimer for the launcher self. Orphans are given grace
// between SIGTERM and SIGKILL; helper is the value of HelperEnv in the
// launcher's own helpers ("" for none).
func New(self int, grace time.Duration, helper string, log *slog.Logger) *Reclaimer {
	return &Reclaimer{
		self: self, grace: grace, log: log, helper: helper,
		nonces: map[string]bool{}, known: map[string][]proc.Identity{},
		orphans: map[int]*orphan{}, wake: make(chan struct{}, 1),
		table: proc.Snapshot,
	}
}

// Expect records nonce as one of our backends', before its start: what
// inherits it is ours. The child itself is started through proc.StartChild,
// whose registry every pass asks, so it is never taken for an orphan.
func (r *Reclaimer) Expect(nonce string) {
	r.mu.Lock()
	r.nonces[nonce] = true
	r.mu.Unlock()
}

// ChildExited wakes the Reclaimer after the launcher collected a child of
// its own: a shim that died may have left orphans.
func (r *Reclaimer) ChildExited() {
	r.mu.Lock()
	r.watchUntil = time.Now().Add(watchAfterExit)
	r.mu.Unlock()
	r.poke()
	proc.WakeCollector()
}

func (r *Reclaimer) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// pass looks at every child of the launcher once. The table is read first
// and only the sorting out of our own children holds proc's registry of
// the children we wait for (proc.WithOwned): a child of ours in the table
// was registered before its start returned, so by the time the registry is
// ours it names that child. The /proc reads and the signals run without it,
// so no start elsewhere in the launcher waits on them. It returns whether
// orphans that need signalling are still pending, so the caller can come
// back soon.
func (r *Reclaimer) pass() (pending bool) {
	table, err := r.table()
	if err != nil {
		r.log.Warn("Reclaimer: list processes", "err", err)
		return true
	}
	var orphans []proc.Process
	proc.WithOwned(func(owned func(int) bool) {
		for _, p := range table {
			if p.PPID == r.self && !owned(p.PID) {
				orphans = append(orphans, p)
			}
		}
	})
	now := time.Now()
	for _, p := range orphans {
		r.handleChild(p, now)
	}
	for pid, o := range r.orphans {
		if _, ok := table.Find(pid); !ok {
			delete(r.orphans, pid) // collected (by proc.CollectOrphans) or never ours any more
			continue
		}
		pending = true
		o.stop.Escalate(now)
	}
	return pending
}

func (r *Reclaimer) handleChild(p proc.Process, now time.Time) {
	o := r.orphans[p.PID]
	if p.Zombie {
		// Dead: nothing left to stop. Collecting its exit is proc.CollectOrphans'
		// job, the one loop that owns wait for what nobody here started.
		if o != nil && o.id.Start == p.Start {
			delete(r.orphans, p.PID)
		}
		proc.WakeCollector() // SIGCHLD may not have reached it
		return
	}
	if o != nil {
		return
	}
	id := p.Identity()
	if r.isHelper(p.PID) {
		return // never signalled; collected by proc.CollectOrphans once it exits
	}
	if !r.isOurs(p.PID) && !r.wasSampled(id) {
		return
	}
	r.log.Info("reclaimed an orphaned backend descendant; stopping it", "pid", p.PID, "comm", p.Comm)
	stop, err := proc.Terminate(id, r.grace, now)
	if err != nil {
		r.log.Warn("reclaim: stop orphan", "pid", p.PID, "err", err)
		return // looked at again on the next pass
	}
	r.orphans[p.PID] = &orphan{id: id, stop: stop}
}

// isOurs is the positive evidence: the process inherited the nonce of one of
// our backends.
func (r *Reclaimer) isOurs(pid int) bool {
	v, ok, err := proc.Getenv(pid, hermes.EnvParentNonce)
	if err != nil || !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nonces[v]
}

// maxKnownTrees bounds how many backends' last samples the Reclaimer keeps:
// orphans of an instance appear soon after it ends, not days later.
const maxKnownTrees = 64

// Know records the descendants a sample saw in the tree of the backend with
// nonce: if that tree's shim dies, they are positively ours when they are
// reparented to us, whatever their environment says.
func (r *Reclaimer) Know(nonce string, ids []proc.Identity) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.known[nonce]; !ok && len(r.known) >= maxKnownTrees {
		for n := range r.known { // forget one other tree; any will do
			if n != nonce {
				delete(r.known, n)
				break
			}
		}
	}
	r.known[nonce] = ids
}

// wasSampled reports whether id was seen in one of our backends' trees.
func (r *Reclaimer) wasSampled(id proc.Identity) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ids := range r.known {
		for _, k := range ids {
			if k.Same(id) {
				return true
			}
		}
	}
	return false
}

// isHelper: the process descends from a helper we started (a URL opener)
// and may only be collected.
func (r *Reclaimer) isHelper(pid int) bool {
	if r.helper == "" {
		return false
	}
	v, ok, err := proc.Getenv(pid, HelperEnv)
	return err == nil && ok && v == r.helper
}

// Run serves SIGCHLD (and pokes) until ctx ends, then tears down whatever it
// still holds, bounded by the grace period.
func (r *Reclaimer) Run(ctx context.Context) {
	sigchld, stop := notifyChildExit()
	defer stop()
	t := time.NewTimer(0) // a first pass at start
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			r.finish()
			return
		case <-sigchld:
		case <-r.wake:
		case <-t.C:
		}
		t.Stop()
		if next := r.nextPass(r.pass()); next > 0 {
			t.Reset(next)
		}
	}
}

// Pass pacing. GUI toolkits may take SIGCHLD for themselves, so passes do
// not rely on it alone: fast while orphans are being stopped, slow for a
// minute after a child of ours died (its orphans come to us then). At
// rest, with neither, no timer runs at all.
const (
	busyPass       = 100 * time.Millisecond
	watchPass      = 5 * time.Second
	watchAfterExit = time.Minute
)

// nextPass is when to look again; 0 means only when woken.
func (r *Reclaimer) nextPass(pending bool) time.Duration {
	if pending {
		return busyPass
	}
	r.mu.Lock()
	watching := time.Now().Before(r.watchUntil)
	r.mu.Unlock()
	if watching {
		return watchPass
	}
	return 0
}

// finish kills the orphans it still holds, at launcher shutdown, and waits
// until they are dead (proc.CollectOrphans collects them).
func (r *Reclaimer) finish() {
	deadline := time.Now().Add(r.grace + proc.KillWait)
	for r.pass() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // bounded: shutdown only
	}
}
