package backend

import (
	"context"
	"fmt"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/handoff"
	"hermes-desktop/platform/proc"
)

// The handoff is its own object (backend/handoff); the launcher holds its
// Sender and answers what it asks through handoffHost, and nothing else.

// HandedOff is closed once a successor owns everything: the launcher must
// exit without tearing anything down.
func (l *Launcher) HandedOff() <-chan struct{} { return l.handoff.HandedOff() }

// Relaunch hands this instance over to a new run of its own executable
// (handoff.Sender.Relaunch): with keepBackends the backends keep
// running where the platform can hand them over; without, the new instance
// starts them anew.
func (l *Launcher) Relaunch(ctx context.Context, keepBackends bool) (*protocol.HandoffResult, error) {
	return l.handoff.Relaunch(ctx, keepBackends)
}

// handoff is the part of the configuration the handoff's Sender is built
// from.
func (c *Config) handoff(self proc.Identity, nonce string) handoff.Config {
	return handoff.Config{
		StateDir: c.StateDir, Exe: c.Self, Args: c.Args, Self: self, Nonce: nonce,
		LauncherJob: c.LauncherJob, Logger: c.Logger,
	}
}

// handoffHost is the launcher as the handoff's Sender sees it
// (handoff.Launcher).
type handoffHost struct{ l *Launcher }

// NewExecutable is what a package upgrade put in place of our executable.
func (h handoffHost) NewExecutable() (string, bool) { return h.l.upd.NewExecutable() }

// StopBackends stops every backend, the first failure ending it.
func (h handoffHost) StopBackends(ctx context.Context) error {
	for _, s := range h.l.sups.All() {
		if err := s.Stop(ctx); err != nil {
			return fmt.Errorf("stop backend %s: %w", s.Spec().Name, err)
		}
	}
	return nil
}

// StartBackends starts every backend again (errors are the backends' own
// state to show).
func (h handoffHost) StartBackends(ctx context.Context) {
	for _, s := range h.l.sups.All() {
		_ = s.Start(ctx)
	}
}

// Views asks each supervisor for a copy of what a handoff needs of its
// backend. On an error it returns the views gathered, whose job handles
// the Sender closes.
func (h handoffHost) Views(ctx context.Context) ([]handoff.View, error) {
	var views []handoff.View
	for _, s := range h.l.sups.All() {
		v, err := s.HandoffView(ctx)
		if err != nil {
			return views, err
		}
		views = append(views, v)
	}
	return views, nil
}

// Detach makes every supervisor let go without teardown, even if one of
// them fails to answer, and stops the reclaimer: the orphans are the
// successor's to finish off now.
func (h handoffHost) Detach() {
	for _, s := range h.l.sups.All() {
		if err := s.Detach(context.Background()); err != nil {
			h.l.cfg.Logger.Error("handoff commit: detach", "backend", s.Spec().Name, "err", err)
		}
	}
	h.l.subreaper.stopReclaimer()
}

// LetGo releases the socket and both locks.
func (h handoffHost) LetGo() { h.l.claim.letGo() }

// TakeBack takes them back, unless the launcher is shutting down.
func (h handoffHost) TakeBack(ctx context.Context) error { return h.l.claim.takeBack(ctx) }
