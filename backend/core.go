package backend

import (
	"slices"
	"sync"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/runspec"
)

// preparation is what Open leaves to Prepare and Start: the lookup of the
// core (Config.LocateCore), so that a window can open while it runs, and
// the backends a predecessor handed over (adopt mode).
type preparation struct {
	locate   func() string  // nil: Open had the core already
	given    []runspec.Spec // the backends as configured, resolved anew with the core
	once     sync.Once
	prepared chan struct{} // closed once cfg.Core and cfg.Backends are final
	// adopted are the backends a predecessor handed over: written in
	// Open, read in Start, which the caller runs after Open.
	adopted map[string]*handoff.Adopted
	// remote are the backends on other hosts a predecessor handed over,
	// claimed as their supervisors start (same rule as adopted).
	remote map[string]*handoff.RemoteAdopted
}

// newPreparation takes the lookup out of cfg: a successor that adopts
// backends does it now (Open resolves their commands to match the
// handover), any other launcher at Prepare.
func newPreparation(cfg *Config) *preparation {
	c := &preparation{prepared: make(chan struct{})}
	locate := cfg.LocateCore
	cfg.LocateCore = nil
	switch {
	case locate == nil || cfg.Core != "":
	case cfg.AdoptFrom != nil:
		cfg.Core = locate()
	default:
		// The elements are copied; ApplyDefaults sets their fields rather
		// than write into what they share with cfg.Backends.
		c.locate, c.given = locate, slices.Clone(cfg.Backends)
	}
	return c
}

// deferred reports whether Prepare finds the core: until it has, cfg.Core
// and cfg.Backends may still change.
func (c *preparation) deferred() bool { return c.locate != nil }

// await waits until what the launcher runs is fixed, when that is
// Prepare's to do.
func (c *preparation) await() {
	if c.deferred() {
		<-c.prepared
	}
}

// use makes core cfg's and resolves the backends again from their
// configuration with it, reporting whether it did. "" (the lookup's
// answer when the core cannot be used) keeps Self, with which Open
// resolved them.
func (c *preparation) use(cfg *Config, core string) bool {
	if core == "" || core == cfg.Core {
		return false
	}
	next := Config{Core: core, Backends: slices.Clone(c.given)}
	if err := next.applyBackendDefaults(); err != nil {
		// Never: Open checked the same specs, and no check depends on the
		// executable's path. The shims then run from Self.
		cfg.Logger.Warn("the backends keep the app's own executable", "err", err)
		return false
	}
	cfg.Core, cfg.Backends = core, next.Backends
	return true
}
