// Package netns isolates a remote backend from the other accounts of its
// host: it runs in a user and network namespace of its own (Linux, where
// the kernel lets the user make them: Probe), its port reached only
// through a 0600 unix socket in a 0700 directory, its egress through an
// HTTP proxy served outside (DESIGN "Remote backends", Isolation). The
// remote watchdog (watchdog/remotewd) holds an Isolation per run; the
// held start prepares the namespace (HoldPrepare); Main is the relay
// inside it, and the probe.
package netns

// Subcommand is the core's hidden subcommand of the relay and the probe.
const Subcommand = "watchdog-netns"

// Dir holds, under the remote user's home, one 0700 directory per
// isolated run (named by its ownership id) with its two 0600 sockets:
// BackendSocket (to the backend's port) and ProxySocket (the backend's
// egress proxy).
const (
	Dir           = ".hermes-desktop/netns"
	BackendSocket = "backend.sock"
	ProxySocket   = "proxy.sock"
)
