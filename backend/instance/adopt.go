package instance

import (
	"log/slog"
	"os"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reclaim"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// Adopted is what a predecessor says of a running instance it hands over.
type Adopted struct {
	Nonce   string
	Argv    []string
	Shim    proc.Identity
	Backend proc.Identity
	Token   string
	// Owner is the launcher adopting it, which its record now names.
	Owner lockfile.Owner
	// LeakGuard and Logger are as in Params.
	LeakGuard leakguard.Config
	Logger    *slog.Logger
	// What held its tree, why nothing stronger, and its cgroup ("" when
	// none).
	Containment       model.Containment
	ContainmentReason string
	Cgroup            string
	// Job is the kill-on-close job the predecessor kept the tree in
	// (Windows; InheritTreeJob): the instance's once Adopt succeeds, the
	// caller's still when it fails. Nil for none.
	Job *TreeJob
}

// Adopt rebuilds an instance from what a predecessor handed over:
// the shim and backend (checked again here), the lifeline write end, the
// output pipes and the tree's job (Windows) it inherited. The shim is not
// our child: its exit is seen through a handle and its status is unknown;
// its group is not pinned, so the tree is followed by identities only. On
// an error the files are closed and the job is left to the caller.
func Adopt(spec *runspec.Spec, b Adopted, lifeline, outR, errR *os.File, log *logs.Log, reclaimer *reclaim.Reclaimer) (*Instance, error) {
	// The shim first: its identity checked through a handle that pins
	// it, so the job's membership is then asked of the shim itself.
	h, err := proc.Open(b.Shim)
	var jk jobKiller
	if err == nil {
		jk, err = adoptJobKiller(b.Job, h)
	}
	if err == nil {
		err = proc.Check(b.Backend)
	}
	if err != nil {
		if h != nil {
			h.Close()
		}
		lifeline.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	pollable(outR)
	pollable(errR)
	known := make(chan struct{})
	i := &Instance{
		spec: spec, nonce: b.Nonce, argv: b.Argv, token: b.Token, log: log, reclaimer: reclaimer,
		leader: leader{id: b.Shim, handle: h},
		shim:   shimLink{client: watchdog.AdoptShim(lifeline), released: true, backend: b.Backend, known: known},
		cont: containment{nonce: b.Nonce, viaShim: true, kind: b.Containment, why: b.ContainmentReason,
			cgroup: b.Cgroup, known: known},
		out:       output{log: log, ready: run.NewPortMatcher(spec.ReadyRegex), outR: outR, errR: errR},
		rec:       newRecordState(b.LeakGuard, b.Logger, spec.Name, log, b.Owner),
		tree:      newTree(b.Shim, 0),
		jobKiller: jk,
		exited:    make(chan struct{}),
	}
	i.rec.created = time.Now()
	i.cont.takeReport(b.Cgroup, "")
	close(known)
	// Known from the start, so a teardown finds the tree even before the
	// first sample, and even if the shim dies first.
	i.tree.add(b.Backend)
	_ = i.tree.refresh()
	i.out.start()
	go i.wait()
	return i, nil
}
