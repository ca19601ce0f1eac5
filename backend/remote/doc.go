// Package remote runs backends on other hosts: the run.Runner and
// run.Process of a backend whose settings name a host (issue 25,
// DESIGN "Remote backends (SSH)").
//
// A Machine is one remote machine for the app's session: its transport
// (one multiplexed ssh connection, backend/ssh) and the core installed
// there once (backend/remotecore). An Instance is one run of a backend
// there: a channel running our remote watchdog (remotewd.RemoteMain),
// whose stdin is its lifeline; the heartbeat the app writes into it every
// few seconds and the watchdog answers; the backend's output streamed
// back into its log; and a forward from a local loopback port to the
// backend's remote one, through which the health check, Open Hermes and
// Copy connection details reach it.
//
// When the channel closes right after a heartbeat (quit, crash, a killed
// ssh client) the remote watchdog tears the tree down at once; when it
// stays open but silent (a partition, a stopped ssh) it does so after the
// disconnect grace. A blip shorter than the grace shows as "reconnecting"
// and heals on the same channel. A channel that closes after a silence
// (the session went quiet first) leaves the tree waiting for the rest of
// the grace: the run, "reconnecting", claims it back over the host's next
// session with its session secret (reclaim.go), and an update's successor
// claims it with a one-time secret (claimed.go).
//
// A remote run is a peer of the local one (backend/instance): both
// implement package run, and neither imports the other.
package remote
