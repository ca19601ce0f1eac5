package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/platform/proc"
)

// The adopt-mode handoff's wire protocol, between old (the running
// instance) and new (the successor it starts). Both sides use only what is
// defined here.
//
//  1. Old starts new with its own command line plus AdoptFDArg() and these
//     inherited files: fd 3 the state pipe's read end, then for backend i
//     (in order) its lifeline's write end at 4+3i and its stdout and stderr
//     read ends at 5+3i and 6+3i (see BackendFDs).
//  2. Old writes one JSON State on the state pipe and closes it.
//  3. New verifies each backend, then calls protocol.OpHandoffCommit with
//     its identity on old's socket; from old's answer on, the backends
//     are new's. New then tells each shim its new owner down the lifeline
//     (watchdog.FormatOwner).
//
// Backends on other hosts (State.Remote) cross differently: old has sent
// their watchdogs "handover <one-time secret> <window>" (remotewd), and
// new claims each over its own connection with that secret. Only the
// forward's listening socket is passed, where old has one to pass: at
// RemoteListenerFD, after every local backend's fds, so that the local
// port answers throughout. A successor that does not know State.Remote
// (an older version, a rollback) ignores it: those backends end with
// their window, and it starts them anew.
//
// A restart-mode successor inherits nothing; EnvWait tells it how
// long to wait for old's locks.

// AdoptFDFlag is the successor's (hidden) flag naming the state pipe.
const AdoptFDFlag = "adopt-fd"

// StateFD is the state pipe's fd in the successor.
const StateFD = 3

// MaxState bounds the state a successor reads.
const MaxState = 1 << 20

// AdoptFDArg is the argument that tells a successor where the state is.
func AdoptFDArg() string { return "--" + AdoptFDFlag + "=" + strconv.Itoa(StateFD) }

// BackendFDs are the fds backend i's files have in the successor.
func BackendFDs(i int) (lifeline, stdout, stderr int) {
	base := StateFD + 1 + 3*i
	return base, base + 1, base + 2
}

// RemoteWindow is how long a remote backend's watchdog waits for the
// successor's claim once the predecessor let go.
const RemoteWindow = 30 * time.Second

// RemoteListenerFD is the fd of the i-th passed listener in the
// successor, after locals local backends' fds.
func RemoteListenerFD(locals, i int) int { return StateFD + 1 + 3*locals + i }

// State is what old tells new in adopt mode.
type State struct {
	From      proc.Identity `json:"from"`
	FromNonce string        `json:"from_nonce"`
	Backends  []Backend     `json:"backends"`
	// Remote are the backends on other hosts handed over by a claim.
	Remote []RemoteBackend `json:"remote,omitempty"`
}

// RemoteBackend is one backend on another host on the wire: what the
// successor's claim needs (run.RemoteHandover).
type RemoteBackend struct {
	Status      model.BackendStatus `json:"status"`
	Host        string              `json:"host"`
	OwnershipID string              `json:"ownership_id"`
	SpawnNonce  string              `json:"spawn_nonce"`
	Secret      string              `json:"secret"`
	Nonce       string              `json:"nonce"`
	Token       string              `json:"token,omitempty"`
	Shim        proc.Identity       `json:"shim"`
	Backend     proc.Identity       `json:"backend"`
	ClaimSocket string              `json:"claim_socket"`
	RemotePort  int                 `json:"remote_port"`
	// Socket is an isolated backend's socket (run.RemoteHandover.Socket);
	// an older successor that does not know it forwards to RemotePort,
	// which does not answer: its health check fails and it starts anew.
	Socket    string `json:"socket,omitempty"`
	LocalPort int    `json:"local_port"`
	// Listener is the forward's listening socket's fd in the successor
	// (RemoteListenerFD), 0 when none was passed.
	Listener int `json:"listener_fd,omitempty"`
}

// Handover is b as the successor's claim takes it (Listener left nil: the
// successor opens the fd itself).
func (b RemoteBackend) Handover() run.RemoteHandover {
	return run.RemoteHandover{
		Host: b.Host, OwnershipID: b.OwnershipID, SpawnNonce: b.SpawnNonce, Secret: b.Secret, Nonce: b.Nonce,
		Token: b.Token, Shim: b.Shim, Backend: b.Backend, ClaimSocket: b.ClaimSocket, RemotePort: b.RemotePort, Socket: b.Socket, LocalPort: b.LocalPort,
	}
}

// Backend is one backend on the wire: its status, identities and session
// token, and the fds its files have in the successor.
type Backend struct {
	Status  model.BackendStatus `json:"status"`
	Nonce   string              `json:"nonce"`
	Argv    []string            `json:"argv"`
	Shim    proc.Identity       `json:"shim"`
	Backend proc.Identity       `json:"backend"`
	// Token is the backend's session token ("" for a dashboard): the pipe
	// is private to the two instances.
	Token string `json:"token,omitempty"`
	// Cgroup is the backend's cgroup path ("" when it has none).
	Cgroup string `json:"cgroup,omitempty"`
	// File descriptors in the successor.
	Lifeline int `json:"lifeline_fd"`
	Stdout   int `json:"stdout_fd"`
	Stderr   int `json:"stderr_fd"`
}

// View is what a handoff needs of one running backend, copied by its
// supervisor's goroutine (the instance's only owner), so the handoff never
// touches the instance itself.
type View struct {
	Status model.BackendStatus
	// External: the backend is someone else's, attached to; nothing is
	// handed over and the successor attaches again.
	External bool
	// Remote: the backend runs on another host over this app's
	// connection; the successor claims it (RemoteHandover) or, when it
	// cannot be handed over (nil), starts it anew.
	Remote         bool
	RemoteHandover *run.RemoteHandover
	// Handover is the instance's own account of itself (zero when
	// External).
	run.Handover
}

// NewState lays the backends out on the wire: their descriptions,
// with fds, and the files to pass, in fd order after the state pipe; the
// views with a RemoteHandover go after the local ones (addRemote).
func NewState(from proc.Identity, fromNonce string, views []View) (State, []*os.File) {
	st := State{From: from, FromNonce: fromNonce}
	var files []*os.File
	var remote []View
	for _, v := range views {
		if v.RemoteHandover != nil {
			remote = append(remote, v)
			continue
		}
		i := len(st.Backends)
		lifeline, stdout, stderr := BackendFDs(i)
		st.Backends = append(st.Backends, Backend{
			Status: v.Status, Nonce: v.Nonce, Argv: v.Argv, Shim: v.Shim, Backend: v.Backend, Token: v.Token, Cgroup: v.Cgroup,
			Lifeline: lifeline, Stdout: stdout, Stderr: stderr,
		})
		files = append(files, v.Lifeline, v.Stdout, v.Stderr)
	}
	return st, addRemote(&st, files, remote)
}

// addRemote lays the remote backends out after the local ones: their
// descriptions, and the listeners to pass, in fd order after files.
func addRemote(st *State, files []*os.File, remote []View) []*os.File {
	passed := 0
	for _, v := range remote {
		h := v.RemoteHandover
		b := RemoteBackend{
			Status: v.Status, Host: h.Host, OwnershipID: h.OwnershipID, SpawnNonce: h.SpawnNonce, Secret: h.Secret, Nonce: h.Nonce,
			Token: h.Token, Shim: h.Shim, Backend: h.Backend, ClaimSocket: h.ClaimSocket, RemotePort: h.RemotePort, Socket: h.Socket, LocalPort: h.LocalPort,
		}
		if h.Listener != nil {
			b.Listener = RemoteListenerFD(len(st.Backends), passed)
			files = append(files, h.Listener)
			passed++
		}
		st.Remote = append(st.Remote, b)
	}
	return files
}

// Write sends the state (old's side).
func Write(w io.Writer, st State) error {
	if err := json.NewEncoder(w).Encode(st); err != nil {
		return fmt.Errorf("handoff: send state: %w", err)
	}
	return nil
}

// Read reads and checks the state (new's side): each backend's
// fds must be the ones the layout gives it, so a confused predecessor can
// never make us treat an unrelated descriptor as a lifeline.
func Read(r io.Reader) (State, error) {
	var st State
	if err := json.NewDecoder(io.LimitReader(r, MaxState)).Decode(&st); err != nil {
		return st, fmt.Errorf("handoff: read state: %w", err)
	}
	if err := st.From.Validate(); err != nil {
		return st, fmt.Errorf("handoff: state names no valid predecessor: %w", err)
	}
	for i, b := range st.Backends {
		lifeline, stdout, stderr := BackendFDs(i)
		if b.Lifeline != lifeline || b.Stdout != stdout || b.Stderr != stderr {
			return st, fmt.Errorf("handoff: backend %d: fds %d/%d/%d, want %d/%d/%d", i, b.Lifeline, b.Stdout, b.Stderr, lifeline, stdout, stderr)
		}
		if b.Nonce == "" {
			return st, errors.New("handoff: a backend without a nonce")
		}
	}
	return st, checkRemote(st)
}

// checkRemote checks the remote backends: what a claim needs is there,
// and the listeners' fds are the ones the layout gives them.
func checkRemote(st State) error {
	passed := 0
	for _, b := range st.Remote {
		switch {
		case b.Nonce == "" || b.Host == "":
			return fmt.Errorf("handoff: remote backend %q without a nonce or host", b.Status.Name)
		case len(b.Secret) != 64 || b.ClaimSocket == "":
			return fmt.Errorf("handoff: remote backend %q without a one-time secret or claim socket", b.Status.Name)
		case b.Listener != 0 && b.Listener != RemoteListenerFD(len(st.Backends), passed):
			return fmt.Errorf("handoff: remote backend %q: listener fd %d, want %d", b.Status.Name, b.Listener, RemoteListenerFD(len(st.Backends), passed))
		}
		if b.Listener != 0 {
			passed++
		}
	}
	return nil
}

// EnvWait tells a restart-mode successor how long to wait for the
// single-instance lock its predecessor is releasing.
const EnvWait = "HERMES_DESKTOP_HANDOFF_WAIT"
