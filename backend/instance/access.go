package instance

import (
	"hermes-desktop/backend/run"
	"hermes-desktop/platform/proc"
)

// What the supervisor reads of an instance. Each value is fixed before
// Spawn (or Adopt) returns, or, where said, before the channel named
// closes: safe to read from the instance's owner without a lock.

// ViaShim reports whether the backend runs behind the watchdog shim.
func (i *Instance) ViaShim() bool { return i.shim.on() }

// Leader is the process we started: the shim, or the backend itself.
func (i *Instance) Leader() proc.Identity { return i.leader.id }

// BackendID is the backend's identity; valid once BackendKnown is closed.
func (i *Instance) BackendID() proc.Identity { return i.shim.backend }

// BackendKnown is closed once the backend's identity is known.
func (i *Instance) BackendKnown() <-chan struct{} { return i.shim.known }

// Token is the session token the backend was given ("" for a dashboard).
// Show it only when the user asks; never log it.
func (i *Instance) Token() string { return i.token }

// Exited is closed once the leader has exited and its tree is gone.
func (i *Instance) Exited() <-chan struct{} { return i.exited }

// ExitStatus is how the leader ended; valid once Exited is closed.
func (i *Instance) ExitStatus() run.ExitStatus { return i.status }
