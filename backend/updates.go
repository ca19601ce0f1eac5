package backend

import (
	"context"
	"fmt"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/selfupdate"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/platform/proc"
)

// The self-update is its own object (backend/selfupdate); the launcher
// holds it and answers what it asks through updateHost, and nothing else.

// Updates returns the self-update: checks, apply, skip, the update
// settings, the relaunch into an upgraded executable, and the health
// window after a handoff.
func (l *Launcher) Updates() *selfupdate.Updater { return l.upd }

// selfUpdate is the part of the configuration the Updater is built from.
func (c *Config) selfUpdate(self proc.Identity) selfupdate.Config {
	names := make([]string, 0, len(c.Backends))
	for _, spec := range c.Backends {
		names = append(names, spec.Name)
	}
	return selfupdate.Config{
		StateDir: c.StateDir, Exe: c.Self, Self: self, Version: c.Version, Keys: c.UpdateKeys,
		Feed: c.UpdateFeed, FeedFrom: c.UpdateFeedFrom, Automatic: c.UpdateAutomatically, AutomaticFrom: c.UpdateAutomaticallyFrom,
		HealthWindow: c.UpdateHealthWindow, CheckInterval: c.UpdateCheckInterval, Backends: names,
		Logger: c.Logger, Announce: c.Announce,
	}
}

// updateHost is the launcher as the Updater sees it (selfupdate.Launcher).
type updateHost struct{ l *Launcher }

// HandOff hands the instance over; a successor is returned only once it
// owns the backends (a typed nil would look like one).
func (h updateHost) HandOff(ctx context.Context, args protocol.HandoffArgs) (selfupdate.Successor, error) {
	succ, _, err := h.l.handoff.Handoff(ctx, args)
	if succ == nil {
		return nil, err
	}
	return succ, err
}

// HandedOver marks the launcher as handed over: main exits without
// teardown.
func (h updateHost) HandedOver() { h.l.handoff.Finish() }

// Busy refuses while a handoff runs or a backend is (re)starting.
func (h updateHost) Busy() error {
	if h.l.handoff.Busy() {
		return fmt.Errorf("%w: a handoff is under way", errkind.ErrBusy)
	}
	for _, s := range h.l.sups.All() {
		if st := s.Status(); st.State == model.StateStarting || st.State == model.StateRestarting {
			return fmt.Errorf("%w: backend %s is %s", errkind.ErrBusy, st.Name, st.State)
		}
	}
	return nil
}

// CrashCounts is each backend's crash count.
func (h updateHost) CrashCounts() map[string]int {
	out := map[string]int{}
	for _, s := range h.l.sups.All() {
		st := s.Status()
		out[st.Name] = st.Crashes
	}
	return out
}

// StartFresh starts exe as a restart-mode successor (it waits for the
// state dir, then boots normally) and waits until it serves.
func (h updateHost) StartFresh(ctx context.Context, exe string) (selfupdate.Successor, error) {
	succ, err := h.l.handoff.StartFresh(ctx, exe)
	if succ == nil { // a typed nil would look like a successor
		return nil, err
	}
	return succ, err
}

// PublishStatus announces a status change to the subscribers.
func (h updateHost) PublishStatus() { h.l.events.Publish(model.Event{Kind: model.EventStatus}) }

// AddNotice records a notice for status.
func (h updateHost) AddNotice(msg string) { h.l.AddNotice(msg) }
