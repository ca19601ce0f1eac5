package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/handoffwire"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/internal/proc"
	"hermes-desktop/lockfile"
	"hermes-desktop/watchdog"
)

// New's side of an adopt-mode handoff: read the state, verify and take
// over each backend.

// adoptedBackend is a backend a predecessor handed over.
type adoptedBackend struct {
	inst *instance.Instance
	prev model.BackendStatus
}

func (a *adoptedBackend) instance() *instance.Instance {
	if a == nil {
		return nil
	}
	return a.inst
}

func (a *adoptedBackend) status() model.BackendStatus {
	if a == nil {
		return model.BackendStatus{}
	}
	return a.prev
}

// takeOver is new's side in adopt mode: read the state, verify every
// backend, commit with old, take the locks, make the records and the shims
// name us.
func (l *Launcher) takeOver(statePipe *os.File) error {
	_ = statePipe.SetReadDeadline(time.Now().Add(10 * time.Second))
	st, err := handoffwire.Read(statePipe)
	statePipe.Close()
	if err != nil {
		return err
	}
	for _, b := range st.Backends {
		for _, id := range []proc.Identity{b.Shim, b.Backend} {
			if err := proc.Check(id); err != nil {
				return fmt.Errorf("handoff: backend %s: %w", b.Status.Name, err)
			}
		}
	}
	if l.ownerLock, err = lockfile.AcquireOwner(l.cfg.StateDir, l.nonce); err != nil {
		return err
	}
	args, _ := json.Marshal(handoffwire.CommitArgs{PID: l.self.PID, Start: l.self.Start})
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
func (l *Launcher) adoptBackend(b handoffwire.Backend) (*instance.Instance, error) {
	var spec *runspec.Spec
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
	inst, err := instance.Adopt(spec, instance.Adopted{Nonce: b.Nonce, Argv: b.Argv, Shim: b.Shim, Backend: b.Backend, Token: b.Token,
		Containment: b.Status.Containment, ContainmentReason: b.Status.ContainmentReason, Cgroup: b.Cgroup}, lifeline, outR, errR, l.backendLog(spec.Name), l.reclaimer)
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
