package handoff

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reclaim"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/handles"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// New's side of an adopt-mode handoff: read the state, verify and take
// over each backend.

// Receiving is what new's side needs of the launcher being opened.
type Receiving struct {
	// StateDir is the state directory old and new share.
	StateDir string
	// Self and Nonce are the new instance, which the records and shims
	// will name.
	Self  proc.Identity
	Nonce string
	// Records are the state dir's backend records.
	Records *lockfile.Records
	// Specs are the backends of the new configuration; a handed-over
	// backend it does not name is let go (its shim tears it down).
	Specs []runspec.Spec
	// Log returns a backend's log, where its output goes.
	Log func(name string) *logs.Log
	// Reclaimer finishes off what an adopted backend leaves behind.
	Reclaimer *reclaim.Reclaimer
	// LeakGuard configures the adopted backends' leak guards.
	LeakGuard leakguard.Config
	// LauncherJob is the job the predecessor handed down and we joined
	// (Windows): every shim must live in it, or old's exit would end it.
	// Nil where there is none (Unix).
	LauncherJob *instance.LauncherJob
	// Logger receives the handoff's log; it must not be nil.
	Logger *slog.Logger
}

// Received is what new's side took over: both locks, and each backend it
// could adopt, by name.
type Received struct {
	// InstLock and OwnerLock are the single-instance lock and this
	// instance's owner lock, now the launcher's to hold and release.
	InstLock, OwnerLock *lockfile.Lock
	// Backends are the backends adopted, by name; one that could not be
	// adopted is missing (its shim tears it down).
	Backends map[string]*Adopted
	// Remote are the backends on other hosts to claim, by name (the
	// launcher's remote runner claims each as its supervisor starts).
	Remote map[string]*RemoteAdopted
}

// RemoteAdopted is a backend on another host a predecessor handed over:
// what its claim needs (with the forward's listener, when one was
// passed) and the status it had there.
type RemoteAdopted struct {
	Handover run.RemoteHandover
	Prev     model.BackendStatus
}

// Adopted is a backend a predecessor handed over: its instance and the
// status it had there.
type Adopted struct {
	// Inst is the running instance, its supervisor's from Start on.
	Inst *instance.Instance
	// Prev is the status it had in the predecessor (crash counts, times).
	Prev model.BackendStatus
}

// Instance is the adopted instance; nil for none.
func (a *Adopted) Instance() *instance.Instance {
	if a == nil {
		return nil
	}
	return a.Inst
}

// Status is the status the backend had before; zero for none.
func (a *Adopted) Status() model.BackendStatus {
	if a == nil {
		return model.BackendStatus{}
	}
	return a.Prev
}

// Receive is new's side in adopt mode: read the state, take the trees'
// jobs, verify every backend, commit with old, take the locks, make the
// records and the shims name us. On an error it holds nothing.
func Receive(statePipe *os.File, r Receiving) (_ Received, err error) {
	st, jobs, err := r.read(statePipe)
	if err != nil {
		return Received{}, err
	}
	var got Received
	defer func() {
		if err != nil {
			_ = got.OwnerLock.Release()
			closeJobs(jobs)
		}
	}()
	if got.OwnerLock, err = lockfile.AcquireOwner(r.StateDir, r.Nonce); err != nil {
		return Received{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := protocol.OpHandoffCommit.Call(ctx, r.StateDir, "", protocol.CommitArgs{PID: r.Self.PID, Start: r.Self.Start}); err != nil {
		return Received{}, fmt.Errorf("handoff: commit: %w", err)
	}
	// From here on the backends are ours: the predecessor exits.
	if got.InstLock, err = lockfile.AcquireWait(ctx, filepath.Join(r.StateDir, lockfile.InstanceLockName)); err != nil {
		return Received{}, fmt.Errorf("handoff: take the instance lock: %w", err)
	}
	got.Backends = map[string]*Adopted{}
	for i, b := range st.Backends {
		inst, err := r.adopt(b, jobs[i])
		if err != nil {
			r.Logger.Error("handoff: could not adopt a backend; its shim will tear it down", "backend", b.Status.Name, "err", err)
			keepJob(b.Shim, jobs[i])
			continue
		}
		got.Backends[b.Status.Name] = &Adopted{Inst: inst, Prev: b.Status}
	}
	got.Remote = map[string]*RemoteAdopted{}
	for _, b := range st.Remote {
		h := b.Handover()
		if b.Listener != 0 {
			h.Listener = InheritFile(b.Listener, "listener")
		}
		// A backend the new configuration no longer has on that host is
		// left to its window: its watchdog ends it then.
		if !r.hasRemote(b.Status.Name, b.Host) {
			r.Logger.Warn("handoff: a remote backend this configuration does not run there is left to end", "backend", b.Status.Name, "host", b.Host)
			if h.Listener != nil {
				h.Listener.Close()
			}
			continue
		}
		got.Remote[b.Status.Name] = &RemoteAdopted{Handover: h, Prev: b.Status}
	}
	return got, nil
}

// read reads the state, takes each backend's tree job (Windows; made
// non-inheritable, so nothing we start holds it) and checks every backend.
// The jobs are in the state's order, nil where a tree has none. On an
// error it holds none: the predecessor's copies keep the trees.
func (r *Receiving) read(statePipe *os.File) (State, []*instance.TreeJob, error) {
	_ = statePipe.SetReadDeadline(time.Now().Add(10 * time.Second))
	st, err := Read(statePipe, heldNumbers(statePipe, r.LauncherJob))
	statePipe.Close()
	if err != nil {
		return st, nil, err
	}
	jobs := make([]*instance.TreeJob, len(st.Backends))
	for i, b := range st.Backends {
		if jobs[i], err = instance.InheritTreeJob(uintptr(b.Job)); err != nil {
			closeJobs(jobs)
			return st, nil, fmt.Errorf("handoff: backend %s: %w", b.Status.Name, err)
		}
	}
	if err := r.check(st); err != nil {
		closeJobs(jobs)
		return st, nil, err
	}
	return st, jobs, nil
}

func closeJobs(jobs []*instance.TreeJob) {
	for _, j := range jobs {
		j.Close()
	}
}

// keepJob holds the job of a tree not adopted (nil: none) until its shim
// has exited, then closes it: the shim tears the tree down once its
// lifeline closes (our only copy was closed), and the job must not die
// with the predecessor's exit meanwhile (ours would be its last handle),
// cutting that teardown short. A shim already gone has nothing to wait
// for: the job closes at once, and what is left of its tree with it. The
// one rule for every backend not adopted; the goroutine ends when the
// shim exits.
func keepJob(shim proc.Identity, j *instance.TreeJob) {
	if j == nil {
		return
	}
	h, err := proc.Open(shim)
	if err != nil {
		j.Close()
		return
	}
	go func() {
		h.Wait(context.Background())
		h.Close()
		j.Close()
	}()
}

// check verifies every backend before the commit: its shim and backend
// are still the processes named, and (Windows) the shim lives in the job
// we joined, which keeps it once the predecessor is gone.
func (r *Receiving) check(st State) error {
	for _, b := range st.Backends {
		for _, id := range []proc.Identity{b.Shim, b.Backend} {
			if err := proc.Check(id); err != nil {
				return fmt.Errorf("handoff: backend %s: %w", b.Status.Name, err)
			}
		}
		if err := shimInJob(r.LauncherJob, b.Shim.PID); err != nil {
			return fmt.Errorf("handoff: backend %s: %w", b.Status.Name, err)
		}
	}
	return nil
}

// InheritFile takes an fd or handle a predecessor handed over as ours
// (handles.Take: nothing we start later may hold another backend's
// lifeline; on Unix non-blocking, so Close interrupts its reads). Its
// number was checked (Read; the state pipe's is its flag's); one Take
// cannot make ours is still wrapped, to be used and closed.
func InheritFile(fd int, name string) *os.File {
	if f, err := handles.Take(uintptr(fd), name); err == nil {
		return f
	}
	return os.NewFile(uintptr(fd), name)
}

// hasRemote says whether the new configuration runs name on host.
func (r *Receiving) hasRemote(name, host string) bool {
	for i := range r.Specs {
		if r.Specs[i].Name == name {
			return r.Specs[i].Host == host
		}
	}
	return false
}

// adopt rewrites a backend's record to name us, takes its inherited pipes
// and its tree's job, and tells its shim who its owner is now. On an
// error the lifeline is closed (its shim tears the tree down) and the job
// is still the caller's.
func (r *Receiving) adopt(b Backend, job *instance.TreeJob) (*instance.Instance, error) {
	var spec *runspec.Spec
	for i := range r.Specs {
		if r.Specs[i].Name == b.Status.Name {
			spec = &r.Specs[i]
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
	owner := lockfile.Owner{Nonce: r.Nonce, PID: r.Self.PID, Start: r.Self.Start}
	rec, err := r.Records.Load(b.Nonce)
	if err == nil {
		rec.Owner = owner
		err = r.Records.Write(rec)
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	inst, err := instance.Adopt(spec, instance.Adopted{Nonce: b.Nonce, Argv: b.Argv, Shim: b.Shim, Backend: b.Backend, Token: b.Token, Owner: owner, LeakGuard: r.LeakGuard, Logger: r.Logger,
		Containment: b.Status.Containment, ContainmentReason: b.Status.ContainmentReason, Cgroup: b.Cgroup, Job: job}, lifeline, outR, errR, r.Log(spec.Name), r.Reclaimer)
	if err != nil {
		return nil, err // instance.Adopt closed the files
	}
	if _, err := io.WriteString(lifeline, watchdog.FormatOwner(r.Self)); err != nil {
		// Still ours to supervise: when the old owner exits the shim tears
		// down, and the supervisor sees it go and starts a new backend.
		r.Logger.Error("handoff: could not tell the shim its new owner", "backend", spec.Name, "err", err)
	}
	return inst, nil
}
