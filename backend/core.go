package backend

import (
	"slices"
	"sync"

	"hermes-desktop/backend/runspec"
)

// coreLookup is the lookup of the core (Config.LocateCore) that Open
// leaves to Prepare, so that a window can open while it runs.
type coreLookup struct {
	locate   func() string  // nil: Open had the core already
	given    []runspec.Spec // the backends as configured, resolved anew with the core
	once     sync.Once
	prepared chan struct{} // closed once cfg.Core and cfg.Backends are final
}

// newCoreLookup takes the lookup out of cfg: a successor that adopts
// backends does it now (Open resolves their commands to match the
// handover), any other launcher at Prepare.
func newCoreLookup(cfg *Config) *coreLookup {
	c := &coreLookup{prepared: make(chan struct{})}
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
func (c *coreLookup) deferred() bool { return c.locate != nil }

// awaitPrepared waits until what the launcher runs is fixed, when that is
// Prepare's to do.
func (l *Launcher) awaitPrepared() {
	if l.core.deferred() {
		<-l.core.prepared
	}
}

// useCore makes core the launcher's and resolves the backends again from
// their configuration with it. "" (the lookup's answer when the core
// cannot be used) keeps Self, with which Open resolved them.
func (l *Launcher) useCore(core string) {
	if core == "" || core == l.cfg.Core {
		return
	}
	c := Config{Core: core, Backends: slices.Clone(l.core.given)}
	if err := c.applyBackendDefaults(); err != nil {
		// Never: Open checked the same specs, and no check depends on the
		// executable's path. The shims then run from Self.
		l.cfg.Logger.Warn("the backends keep the app's own executable", "err", err)
		return
	}
	l.cfg.Core, l.cfg.Backends = core, c.Backends
	l.remotes.SetSelf(core)
}
