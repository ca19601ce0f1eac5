package instance

import (
	"errors"
	"fmt"

	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// shimLink is an instance's link to its watchdog shim (watchdog's client
// side, which follows watchdog/protocol.go) and what the shim reports of
// the backend. Without a shim (--no-shim) there is no client and the
// backend is the leader, known at once.
type shimLink struct {
	client *watchdog.ShimClient // nil without a shim
	// released: the backend was let start (Release). Owned by the
	// instance's owner.
	released bool
	// backend is the backend's identity: the leader without a shim, or
	// what the shim reported. Written once before known is closed.
	backend proc.Identity
	known   chan struct{}
}

// on reports whether the backend runs behind a shim.
func (s *shimLink) on() bool { return s.client != nil }

// pid is the backend's PID, or 0 while the shim has not reported it.
func (s *shimLink) pid() int {
	select {
	case <-s.known:
		return s.backend.PID
	default:
		return 0
	}
}

// close closes our ends of the shim's pipes: its lifeline closing tells
// the shim to tear its tree down.
func (s *shimLink) close() {
	if s.client != nil {
		_ = s.client.Close()
	}
}

// shimOptions are the flags of the shim that runs the backend.
func (i *Instance) shimOptions(p Params) watchdog.ShimOptions {
	return watchdog.ShimOptions{
		Parent: watchdog.Parent{PID: p.Owner.PID, Start: p.Owner.Start, Nonce: i.nonce},
		Grace:  p.Spec.Grace,
		Cgroup: i.cont.shimCgroup(),
		Argv:   p.Spec.Command,
	}
}

// Release lets the shim start the backend. The caller has recorded the shim
// first, so no backend ever runs without an ownership record.
func (i *Instance) Release() error {
	i.shim.released = true
	if !i.shim.on() {
		return nil
	}
	if err := i.shim.client.Release(); err != nil {
		return fmt.Errorf("backend %s: %w", i.spec.Name, err)
	}
	return nil
}

// readShimReport reads the backend's identity from the shim. It ends at the
// report or at EOF (the shim died or failed to start the backend). It is the
// only writer of the shim's backend.
func (i *Instance) readShimReport() {
	r, err := i.shim.client.ReadReport()
	if errors.Is(err, watchdog.ErrBadReport) {
		i.log.Add("launcher", fmt.Sprintf("report from the watchdog shim: %v", err))
		return
	}
	if err != nil {
		return // no report: the shim died, or we closed the pipe
	}
	if r.Error != "" {
		i.log.Add("launcher", "the watchdog shim could not start the backend: "+r.Error)
		return
	}
	id := proc.Identity{PID: r.PID, Start: r.Start, BootID: proc.BootID()}
	if err := id.Validate(); err != nil {
		i.log.Add("launcher", fmt.Sprintf("invalid report from the watchdog shim: %v", err))
		return
	}
	i.shim.backend = id
	i.cont.takeReport(r.Cgroup, r.CgroupError)
	close(i.shim.known)
}
