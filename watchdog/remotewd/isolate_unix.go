//go:build unix

package remotewd

import (
	"os"
	"path/filepath"

	"hermes-desktop/watchdog/netns"
)

// isolate decides how the backend runs (watchdog/netns): not isolated
// when turned off or when the probe fails (Why says so), else with the
// run's directory under ~/.hermes-desktop/netns (its chain checked as
// this user's, closed to others), its sockets and the control pair made.
func (r *remoteRun) isolate() *netns.Isolation {
	if r.o.Netns == NetnsOff {
		return netns.Off("turned off (--" + FlagNetns + "=" + NetnsOff + ")")
	}
	if err := r.probe(); err != nil {
		return netns.Off("the host refuses an unprivileged user and network namespace: " + err.Error())
	}
	root := filepath.Join(r.home, netns.Dir)
	err := os.MkdirAll(root, 0o700)
	if err == nil {
		err = ownDir(filepath.Dir(root))
	}
	if err == nil {
		err = ownDir(root)
	}
	if err != nil {
		return netns.Off("the namespaces' directory: " + err.Error())
	}
	iso, err := netns.Prepare(root, r.o.OwnershipID, r.log)
	if err != nil {
		iso.Close(r.log)
		return netns.Off(err.Error())
	}
	return iso
}

// reportIsolation fills rb's isolation fields from iso.
func reportIsolation(rb *RemoteBackend, iso *netns.Isolation) {
	if !iso.Active() {
		rb.Isolation, rb.IsolationReason = IsolationNone, iso.Why
		return
	}
	relay := iso.Relay()
	rb.Isolation, rb.Socket, rb.Relay = IsolationNetns, iso.Socket(), &relay
}
