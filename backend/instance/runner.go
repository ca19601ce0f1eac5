package instance

import (
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
)

// Local runs backends on this machine: Spawn with its Params.
type Local struct {
	// Params are the launcher's; Spec is set by Start.
	Params Params
}

// Start spawns spec's command (Spawn).
func (l Local) Start(spec *runspec.Spec) (run.Process, error) {
	p := l.Params
	p.Spec = spec
	inst, err := Spawn(p)
	if err != nil {
		return nil, err // not a nil *Instance in a non-nil Process
	}
	return inst, nil
}

// What the local run is: a Process with every ability.
var (
	_ run.Process      = (*Instance)(nil)
	_ run.Recorder     = (*Instance)(nil)
	_ run.Sampler      = (*Instance)(nil)
	_ run.Transferable = (*Instance)(nil)
)
