package reap

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/human"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// candidate is a process the reaper looks at: a serve-shaped command line,
// one of our watchdog shims, or a PID a record names.
type candidate struct {
	pid     int
	argv    []string
	shape   Shape
	proc    proc.Process
	statErr error
	// heir is the record of a dead owner whose nonce this process inherited
	// (an MCP server, a tool: a descendant of that backend).
	heir *lockfile.Record
}

// judge scans the process table and decides on every candidate, in PID
// order. It returns the decisions and how many processes it looked at.
func (r *reaper) judge() ([]Decision, int, error) {
	cands, scanned, err := r.scan()
	if err != nil {
		return nil, 0, err
	}
	out := []Decision{} // "none" is [] to a reader of the JSON, not null
	for _, c := range cands {
		if d := r.decide(c); d != nil {
			out = append(out, *d)
		}
	}
	return out, scanned, nil
}

// scan reads every command line (cheap) and the stat of matches only. It
// returns the candidates, in PID order, and how many processes it looked
// at. Command lines are read in parallel: on a busy table the kernel's
// per-file cost dominates, and the reap runs before anything else at boot.
func (r *reaper) scan() ([]candidate, int, error) {
	pids, err := r.v.PIDs()
	if err != nil {
		return nil, 0, fmt.Errorf("reap: %w", err)
	}
	orphaned := r.deadOwnerRecords()
	r.heirs = recordedHeirs(orphaned)
	workers := min(runtime.GOMAXPROCS(0), 8)
	found := make([][]candidate, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(pids); i += workers {
				if c, ok := r.examine(pids[i], orphaned); ok {
					found[w] = append(found[w], c)
				}
			}
		}(w)
	}
	wg.Wait()
	var cands []candidate
	for _, f := range found {
		cands = append(cands, f...)
	}
	slices.SortFunc(cands, func(a, b candidate) int { return a.pid - b.pid })
	return cands, len(pids), nil
}

// examine decides whether pid is a candidate. It only reads; it is safe to
// call from several goroutines.
func (r *reaper) examine(pid int, orphaned map[string]*lockfile.Record) (candidate, bool) {
	if r.only != nil && !r.only[pid] {
		return candidate{}, false
	}
	argv, err := r.v.Cmdline(pid)
	if (err != nil || len(argv) == 0) && r.byPID[pid] == nil {
		return candidate{}, false // gone, or a kernel thread
	}
	shape := ParseShape(argv)
	var heir *lockfile.Record
	if !isCandidateShape(shape) && r.byPID[pid] == nil {
		if heir = r.inheritedRecord(pid, orphaned); heir == nil && r.heirs[pid] == nil {
			return candidate{}, false
		}
	}
	c := candidate{pid: pid, argv: argv, shape: shape, heir: heir}
	c.proc, c.statErr = r.v.Stat(pid)
	if errors.Is(c.statErr, proc.ErrNotFound) || c.proc.Zombie {
		return candidate{}, false // exited (while we looked, or before: a zombie waits only for its parent)
	}
	if h := r.heirs[pid]; c.heir == nil && h != nil {
		if c.statErr != nil || !h.id.Same(c.proc.Identity()) {
			if !isCandidateShape(shape) && r.byPID[pid] == nil {
				return candidate{}, false // the PID went to another process since it was recorded
			}
		} else {
			c.heir = h.rec
		}
	}
	return c, true
}

// recordedHeir is a descendant a dead owner's record lists.
type recordedHeir struct {
	rec *lockfile.Record
	id  proc.Identity
}

// recordedHeirs maps the PIDs of the descendants that dead owners' records
// list; a process counts only if its start time still matches.
func recordedHeirs(records map[string]*lockfile.Record) map[int]*recordedHeir {
	out := map[int]*recordedHeir{}
	for _, rec := range records {
		for _, id := range rec.Descendants {
			if id.BootID == "" {
				id.BootID = rec.BootID
			}
			out[id.PID] = &recordedHeir{rec: rec, id: id}
		}
	}
	return out
}

// deadOwnerRecords maps the nonces of records whose launcher is dead (lock
// free, process gone) to the record. Only then is it worth reading other
// processes' environments.
func (r *reaper) deadOwnerRecords() map[string]*lockfile.Record {
	out := map[string]*lockfile.Record{}
	for _, rec := range r.records {
		if r.ownerDead(rec) {
			out[rec.Nonce] = rec
		}
	}
	return out
}

// ownerDead reports whether rec's launcher is verifiably dead: its owner
// lock free and its process gone. Anything unreadable counts as alive.
func (r *reaper) ownerDead(rec *lockfile.Record) bool {
	held, err := r.v.OwnerLockHeld(rec.Owner.Nonce)
	if err != nil || held {
		return false
	}
	running, err := r.v.Running(rec.Owner.Identity(rec.BootID))
	return err == nil && !running
}

// inheritedRecord returns the dead owner's record whose backend nonce pid
// carries in its environment: the nonce is 128 random bits handed only to
// that backend's tree, so carrying it is positive evidence of descent.
func (r *reaper) inheritedRecord(pid int, records map[string]*lockfile.Record) *lockfile.Record {
	if len(records) == 0 {
		return nil
	}
	nonce, ok, err := r.v.Getenv(pid, hermes.EnvParentNonce)
	if err != nil || !ok {
		return nil
	}
	return records[nonce]
}

func isCandidateShape(s Shape) bool {
	return serveSubcommands[s.Subcommand] || s.Subcommand == watchdog.Subcommand
}

// spare is the decision to leave c alone, and why.
func spare(c candidate, reason, format string, a ...any) *Decision {
	return &Decision{PID: c.pid, Action: ActionSpared, Reason: reason, Detail: fmt.Sprintf(format, a...), Cmdline: c.argv}
}

// wouldReap is the decision to reap c (rec: its record, if any), and why.
func wouldReap(c candidate, rec *lockfile.Record, reason, format string, a ...any) *Decision {
	return &Decision{PID: c.pid, Action: ActionWouldReap, Reason: reason, Detail: fmt.Sprintf(format, a...), Cmdline: c.argv,
		id: c.proc.Identity(), record: rec}
}

// decide applies the rules in order: first what is never signalled, then
// the records (positive evidence either way), then the orphan test.
func (r *reaper) decide(c candidate) *Decision {
	if d := r.neverSignalled(c); d != nil {
		return d
	}
	if c.heir != nil && r.byPID[c.pid] == nil {
		return wouldReap(c, nil, ReasonOwnerDead, "it was started by a backend of Hermes Desktop (PID %d), which has exited", c.heir.Owner.PID)
	}
	noRecordNote := ""
	if rec := r.byPID[c.pid]; rec != nil {
		d, note := r.decideByRecord(c, rec)
		if d != nil {
			return d
		}
		noRecordNote = note
		if !isCandidateShape(c.shape) {
			return spare(c, ReasonIdentityMismatch, "%s; this process is not a backend, so it is left alone", note)
		}
	}
	return r.decideOrphan(c, noRecordNote)
}

// neverSignalled covers what no evidence can override.
func (r *reaper) neverSignalled(c candidate) *Decision {
	if c.statErr != nil {
		return spare(c, ReasonFailClosed, "its identity could not be read (%v)", c.statErr)
	}
	if d := r.neverSignalledByOwner(c); d != nil {
		return d
	}
	if d := r.sshSessionRule(c); d != nil {
		return d
	}
	return r.shapeRule(c)
}

// sshSessionRule spares what Hermes Desktop runs for an SSH session: its
// command line carries --ssh-session-token-file, whatever its shape and
// whether or not a lock names it. It also guards a doomed tree's members.
func (r *reaper) sshSessionRule(c candidate) *Decision {
	if carriesSSHSessionToken(c.argv) {
		return spare(c, ReasonSSHTokenFile, "its command line carries %s: Hermes Desktop runs it for an SSH session", hermes.FlagSSHSessionTokenFile)
	}
	return nil
}

// neverSignalledByOwner is the part of neverSignalled that looks at who
// owns a process, not at its command line: it also guards the members of a
// doomed tree.
func (r *reaper) neverSignalledByOwner(c candidate) *Decision {
	if c.pid <= 1 {
		return spare(c, ReasonAncestor, "PID %d is the system's init", c.pid)
	}
	if c.pid == r.self {
		return spare(c, ReasonAncestor, "this is the reaper itself")
	}
	if r.isAncestor(c.pid) {
		return spare(c, ReasonAncestor, "an ancestor of the reaper")
	}
	if c.proc.UID >= 0 && c.proc.UID != r.uid {
		return spare(c, ReasonOtherUser, "it belongs to uid %d, not to us (uid %d)", c.proc.UID, r.uid)
	}
	if r.exclude[c.pid] {
		return spare(c, ReasonExcludedEnv, "HERMES_DESKTOP_CHILD_PID names it")
	}
	for _, cl := range r.claims {
		if cl.pid == c.pid {
			return spare(c, cl.reason, "%s", cl.detail)
		}
	}
	if unit := r.v.ServiceUnit(c.pid); unit != "" && unit != r.ownUnit {
		return spare(c, ReasonServiceManaged, "it runs in the service unit %s", unit)
	}
	parent := r.parentOf(c.proc)
	if why := serviceManaged(c.proc, parent); why != "" {
		return spare(c, ReasonServiceManaged, "%s", why)
	}
	return nil
}

// isAncestor walks our own parent chain once, a few stat reads: the full
// table is never read.
func (r *reaper) isAncestor(pid int) bool {
	if len(r.ancestors) == 0 {
		r.ancestors[r.self] = true
		for cur := r.self; ; {
			p, err := r.v.Stat(cur)
			if err != nil || p.PPID <= 0 || r.ancestors[p.PPID] {
				break
			}
			r.ancestors[p.PPID] = true
			cur = p.PPID
		}
	}
	return r.ancestors[pid]
}

// parentOf reads the parent of p (a zero Process when it is gone, or when
// its PID was reused by a process younger than p).
func (r *reaper) parentOf(p proc.Process) proc.Process {
	parent, err := r.v.Stat(p.PPID)
	if err != nil || (!parent.Started.IsZero() && parent.Started.After(p.Started)) {
		return proc.Process{}
	}
	return parent
}

// decideByRecord applies the ownership record. A nil decision with a note
// means the record no longer describes this process (PID reused, another
// boot): the record is dropped and the process judged as unrecorded.
func (r *reaper) decideByRecord(c candidate, rec *lockfile.Record) (*Decision, string) {
	recorded := *recordedIdentity(rec, c.pid)
	now := c.proc.Identity()
	if recorded.BootID == "" {
		recorded.BootID = rec.BootID
	}
	if !recorded.Same(now) {
		return nil, fmt.Sprintf("record %s names PID %d with start %s, but PID %d is now %s (reused)", rec.Nonce, c.pid, recorded.Start, c.pid, now.Start)
	}
	if nonce, ok, err := r.v.Getenv(c.pid, hermes.EnvParentNonce); err == nil && ok && nonce != rec.Nonce {
		return spare(c, ReasonIdentityMismatch, "PID and start time match record %s, but its nonce is %s: contradictory, left alone", rec.Nonce, nonce), ""
	}
	held, err := r.v.OwnerLockHeld(rec.Owner.Nonce)
	if err != nil {
		return spare(c, ReasonFailClosed, "whether the Hermes Desktop that started it still runs could not be checked (%v)", err), ""
	}
	if held {
		return spare(c, ReasonOwned, "it belongs to the Hermes Desktop running now (PID %d)", rec.Owner.PID), ""
	}
	if alive, err := r.v.Running(rec.Owner.Identity(rec.BootID)); err != nil || alive {
		return spare(c, ReasonOwned, "the Hermes Desktop that started it (PID %d) still runs, or cannot be checked: left alone", rec.Owner.PID), ""
	}
	return wouldReap(c, rec, ReasonOwnerDead, "it was a backend of Hermes Desktop (PID %d), which has exited", rec.Owner.PID), ""
}

func recordedIdentity(rec *lockfile.Record, pid int) *proc.Identity {
	if rec.Shim != nil && rec.Shim.PID == pid {
		return rec.Shim
	}
	return rec.Backend
}

// shapeRule spares serve commands that are not the desktop's own shape:
// fixed-port and non-loopback servers are never signalled, record or not.
func (r *reaper) shapeRule(c candidate) *Decision {
	if !serveSubcommands[c.shape.Subcommand] {
		return nil // a watchdog shim, or a custom backend a record names
	}
	if !c.shape.Loopback() {
		return spare(c, ReasonNotLoopback, "it listens on %q, not on loopback: not a desktop backend", c.shape.Host)
	}
	if !c.shape.Ephemeral() {
		return spare(c, ReasonFixedPort, "it has a fixed port, like a remote or manually started server")
	}
	return nil
}

// decideOrphan judges a process with no (valid) record: only an orphan old
// enough is reaped.
func (r *reaper) decideOrphan(c candidate, note string) *Decision {
	prefix := ""
	if note != "" {
		prefix = note + "; "
	}
	parent := r.parentOf(c.proc)
	if !isOrphan(c.proc, parent, r.uid) {
		return spare(c, ReasonNotOrphan, "%sits parent (PID %d, %s) is alive: someone runs it", prefix, c.proc.PPID, parent.Comm)
	}
	if r.failClosed != "" {
		return spare(c, ReasonFailClosed, "%sorphaned, but %s", prefix, r.failClosed)
	}
	age, minAge := time.Since(c.proc.Started).Truncate(time.Second), r.o.minAge()
	if c.proc.Started.IsZero() {
		return spare(c, ReasonTooYoung, "%sorphaned, but its age is not known (minimum %s)", prefix, human.Duration(minAge))
	}
	if age < minAge {
		return spare(c, ReasonTooYoung, "%sorphaned but only %s old (minimum %s): it may be starting up", prefix, human.Duration(age), human.Duration(minAge))
	}
	return wouldReap(c, nil, ReasonOrphanNoRecord, "%sorphaned (parent PID %d) for %s with no owner", prefix, c.proc.PPID, human.Duration(age))
}
