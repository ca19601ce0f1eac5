// Package model is the status the launcher reports and the window, the CLI
// and the control socket read: each backend's state (State, BackendStatus;
// the Supervisor owns the transition table), the instance's (InstanceInfo,
// Status), and the events pushed to the window (Event, Broker,
// Subscription). The page's TypeScript types are generated from these
// structs (cmd/tsgen).
//
// It is data, and does no I/O: a running instance is asked for its Status
// over the control protocol (control/protocol).
package model

import (
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/settings"
)

// State is where a backend is in its life.
type State string

// Backend states. A backend starts in StateStopped.
const (
	StateStopped    State = "stopped"
	StateStarting   State = "starting"
	StateReady      State = "ready"
	StateRestarting State = "restarting" // waiting out the backoff after a crash
	StateFailed     State = "failed"     // gave up: too many crashes, or cannot start
	// StateExternal: the command found a Hermes backend someone else runs
	// and attached to it; that one is shown and health-checked, never
	// signalled, and our own is started when it goes away.
	StateExternal State = "external"
)

// BackendStatus is the externally visible state of one backend.
type BackendStatus struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// PID is the backend process (0 when none); ShimPID its watchdog shim.
	PID     int    `json:"pid"`
	ShimPID int    `json:"shim_pid,omitempty"`
	Port    int    `json:"port"`
	URL     string `json:"url,omitempty"`
	// Kind is dashboard, serve or custom.
	Kind settings.Kind `json:"kind"`
	// PageURL is the page a person opens (Open Hermes): a dashboard's, an
	// attached backend's, a custom server's root; "" for a serve backend,
	// which is API only.
	PageURL  string `json:"page_url,omitempty"`
	Restarts int    `json:"restarts"`
	// Crashes counts the restarts after an unexpected exit (Restarts also
	// counts those on request, by a leak guard policy, after a Hermes
	// update); an update's health window watches it for a crash loop.
	Crashes int      `json:"crashes,omitempty"`
	Command []string `json:"command"`
	// Builtin: Command runs Hermes Desktop's own built-in backend (its
	// first word is the core executable, not a program the user chose).
	Builtin bool `json:"builtin,omitempty"`
	// SpawnInfo is the run now on: its nonce, when it started, when it
	// became ready.
	SpawnInfo
	// LastError says, in words, why the backend last stopped unexpectedly
	// or could not start; it is cleared once the backend is ready again.
	LastError string `json:"last_error,omitempty"`
	// LastRestart says why the backend was last restarted (a crash, a leak
	// guard policy, a user); it stays after the backend is ready again.
	LastRestart string `json:"last_restart,omitempty"`
	// LogTail holds the last lines of output when the backend failed.
	LogTail []string `json:"log_tail,omitempty"`
	// Tree is the latest sample of the backend's process tree.
	Tree *leakguard.TreeSample `json:"tree,omitempty"`
	// ContainmentInfo is what holds the backend's tree, and why.
	ContainmentInfo
	// Host is the ssh destination of a backend on another host; "" for a
	// backend on this machine.
	Host string `json:"host,omitempty"`
	// Remote is what a backend on another host shows of its run there
	// (nil for a local one). PID, ShimPID and Containment above are then
	// the remote host's; Port and URL are the local end of the forward.
	Remote *RemoteStatus `json:"remote,omitempty"`
}

// SpawnInfo is a backend's current run as its status shows it; its
// fields are BackendStatus' own on the wire (encoding/json flattens an
// embedded struct, and so does tsgen).
type SpawnInfo struct {
	Nonce   string     `json:"nonce,omitempty"`
	Started *time.Time `json:"started_at,omitempty"`
	ReadyAt *time.Time `json:"ready_at,omitempty"`
}

// ContainmentInfo is what holds a backend's process tree; its fields are
// BackendStatus' own on the wire, as SpawnInfo's.
type ContainmentInfo struct {
	// Containment is what holds the backend's process tree (cgroup,
	// systemd-scope, job or process-tree); "" while none runs.
	Containment Containment `json:"containment,omitempty"`
	// ContainmentReason says why nothing stronger holds it ("cgroup v2 not
	// writable here: ..."); "" when the strongest the OS knows does.
	ContainmentReason string `json:"containment_reason,omitempty"`
	// Cgroup is the backend's cgroup v2 path, when it has one.
	Cgroup string `json:"cgroup,omitempty"`
}

// RemoteStatus is the run of a backend on another host, as its status
// shows it.
type RemoteStatus struct {
	// Connection is the state of the host's ssh connection: "connecting",
	// "connected", "reconnecting", "failed".
	Connection string `json:"connection"`
	// Attempt and NextAttempt say which reconnect attempt is under way
	// and when the next one starts (while reconnecting).
	Attempt     int        `json:"attempt,omitempty"`
	NextAttempt *time.Time `json:"next_attempt,omitempty"`
	// Platform is the remote's OS/arch (linux/amd64).
	Platform string `json:"platform,omitempty"`
	// Port is the backend's port on the remote's loopback; the status'
	// Port is the local end of the forward to it.
	Port int `json:"port,omitempty"`
	// LatencyMS is the round trip of the last heartbeat, in milliseconds.
	LatencyMS float64 `json:"latency_ms,omitempty"`
	// LockDir is the backend's Hermes SSH ownership directory on the
	// remote (~/.hermes/desktop-ssh/<ownershipId>).
	LockDir string `json:"lock_dir,omitempty"`
	// Isolation says who on the remote can reach the backend: "netns" (it
	// runs in a network namespace of its own, reached only through a
	// socket of this user's: no other account), "none" (its Port is on the
	// host's loopback: every account there can connect, and a dashboard's
	// page hands out its token); "" while not known.
	Isolation string `json:"isolation,omitempty"`
	// IsolationReason says why a backend is not isolated.
	IsolationReason string `json:"isolation_reason,omitempty"`
	// Error says why the connection is not up, in words.
	Error string `json:"error,omitempty"`
}
