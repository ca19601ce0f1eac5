package instance

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/run"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// The Instance as a Process: what its Supervisor needs of it, each as one
// value, so the Supervisor never assembles a record or a handoff view from
// the instance's parts.

// recordState is what a run's record says beyond the identities of its
// processes.
type recordState struct {
	owner   lockfile.Owner  // the launcher that owns the run
	created time.Time       // when that launcher started or adopted it
	desc    []proc.Identity // the descendants the last Sample saw
	guard   *leakguard.Guard
}

// Record is the ownership record of this run: the shim (when there is
// one) and the backend once the shim reported it, the descendants the last
// Sample saw, port (0 until ready), and the launcher that owns it.
func (i *Instance) Record(port int) *lockfile.Record {
	boot := proc.BootID()
	leader := i.leader.id
	leader.BootID = boot
	r := &lockfile.Record{
		Schema:      lockfile.RecordSchema,
		Name:        i.spec.Name,
		Nonce:       i.nonce,
		BootID:      boot,
		PGID:        GroupOf(leader.PID),
		Argv:        i.argv,
		Port:        port,
		Descendants: i.rec.desc,
		Profile:     i.spec.Profile,
		Owner:       i.rec.owner,
		Created:     i.rec.created.UTC(),
		Cgroup:      i.cont.treeCgroup(),
	}
	if !i.shim.on() {
		r.Backend = &leader
		return r
	}
	r.Shim = &leader
	if i.shim.pid() != 0 {
		b := i.shim.backend
		b.BootID = boot
		r.Backend = &b
	}
	return r
}

// Info is what the status shows of the run.
func (i *Instance) Info() run.Info {
	in := run.Info{PID: i.shim.pid(), Nonce: i.nonce, Argv: i.argv, Cgroup: i.cont.treeCgroup()}
	if i.shim.on() {
		in.ShimPID = i.leader.id.PID
	}
	in.Containment, in.Reason = i.cont.current()
	return in
}

// newRecordState is the record of a run owner owns, and its leak guard:
// the guard's warnings go to log, with the backend's name, and the lines
// meant for the backend's own log to out.
func newRecordState(cfg leakguard.Config, log *slog.Logger, name string, out *logs.Log, owner lockfile.Owner) recordState {
	if log != nil {
		log = log.With("backend", name)
	}
	return recordState{owner: owner, guard: leakguard.New(cfg, log, func(line string) { out.Add("launcher", line) })}
}

// Sample samples the backend's tree with what this run's earlier samples
// read, adds its members to the tree the teardown ends, keeps the first
// lockfile.MaxDescendants descendants for the record (and the reclaimer),
// and applies the leak guard, which may stop duplicate children here.
func (i *Instance) Sample() (run.Sampled, error) {
	select {
	case <-i.shim.known:
	default:
		return run.Sampled{}, fmt.Errorf("%w: the shim has not reported the backend yet", leakguard.ErrGone)
	}
	ts, err := i.rec.guard.Sample(i.shim.backend, i.cont.treeCgroup())
	if err != nil {
		return run.Sampled{}, err
	}
	i.track(ts.Processes)
	changed := i.keepDescendants(ts)
	restart := i.rec.guard.Check(ts, i.spec.Grace)
	return run.Sampled{Tree: ts, Restart: restart, RecordChanged: changed}, nil
}

// keepDescendants keeps the sample's first lockfile.MaxDescendants
// descendants for the record and tells the reclaimer; it reports whether
// they changed.
func (i *Instance) keepDescendants(ts *leakguard.TreeSample) bool {
	var ids []proc.Identity
	for _, p := range ts.Processes[1:] {
		if len(ids) == lockfile.MaxDescendants {
			break
		}
		id := p.Identity()
		id.BootID = proc.BootID()
		ids = append(ids, id)
	}
	if i.reclaimer != nil {
		i.reclaimer.Know(i.nonce, ids)
	}
	if slices.Equal(ids, i.rec.desc) {
		return false
	}
	i.rec.desc = ids
	return true
}

// Exit says how the run ended; valid once Exited is closed.
func (i *Instance) Exit() run.Exit {
	e := run.Exit{Status: i.status}
	if u := i.out.seenURL.Load(); u != nil && i.status.Code == 0 && !i.status.Unknown {
		e.Attach, _ = run.NewExternal(*u)
	}
	if i.exe.Changed() {
		e.Replaced = i.exe.path
	}
	return e
}

// errStillRunning is TreeGone's answer before the leader has exited.
var errStillRunning = errors.New("instance: still running")

// TreeGone is nil once the leader has exited and the backend's cgroup, if
// it has one, holds no live process (or cannot be read: then it says so).
func (i *Instance) TreeGone() error {
	select {
	case <-i.exited:
	default:
		return errStillRunning
	}
	if i.cont.populated() {
		return fmt.Errorf("instance: the backend's cgroup %s still holds processes after SIGKILL", i.cont.treeCgroup())
	}
	return nil
}

// Handover is what a successor needs to adopt the running instance. Its
// Job is a copy of the tree's job handle, the caller's to close: made
// under mu, which the waiter holds as it closes the job once the tree is
// gone, so the value passed on is never one a later job has reused.
func (i *Instance) Handover() (run.Handover, error) {
	h := run.Handover{
		ViaShim: i.shim.on(), Nonce: i.nonce, Argv: i.argv, Shim: i.leader.id, Backend: i.shim.backend,
		Token: i.token, Cgroup: i.cont.treeCgroup(), Stdout: i.out.outR, Stderr: i.out.errR,
	}
	if i.shim.on() {
		h.Lifeline = i.shim.client.Lifeline()
	}
	if i.jobKiller != nil {
		i.mu.Lock()
		job, err := i.jobKiller.dup()
		i.mu.Unlock()
		if err != nil {
			return run.Handover{}, fmt.Errorf("backend %s: hand over its tree's job: %w", i.spec.Name, err)
		}
		h.Job = job
	}
	return h, nil
}
