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
	"hermes-desktop/backend/settings"
	"hermes-desktop/platform/proc"
)

// The adopt-mode handoff's wire protocol, between old (the running
// instance) and new (the successor it starts). Both sides use only what is
// defined here.
//
//  1. Old starts new with its own command line plus AdoptFDArg (the state
//     pipe) and, on Windows, AdoptJobArg (the launcher's job), and these
//     inherited: the state pipe's read end, then for backend i (in order)
//     its lifeline's write end and its stdout and stderr read ends (and,
//     on Windows, its tree's job). Each is named by the number new knows
//     it by. On Unix that is its position: fd 3 the state pipe, 4+3i,
//     5+3i and 6+3i backend i's (BackendFDs). On Windows a child inherits
//     handles by value, not position (PROC_THREAD_ATTRIBUTE_HANDLE_LIST
//     names exactly these), so each number is the handle's value, checked
//     by its kind (a pipe; a job, which must hold the shim: that it kills
//     on close is not checked, see job.Inherit) and never taken twice: no
//     backend's may be the state pipe's or the launcher job's.
//  2. On Windows new joins the launcher's job before anything else: from
//     then on both hold it, so old's exit does not end it, and the death of
//     both still kills every member. Each tree's job is held the same way.
//  3. Old writes one JSON State on the state pipe and closes it.
//  4. New verifies each backend, then calls protocol.OpHandoffCommit with
//     its identity on old's socket; from old's answer on, the backends
//     are new's. New then tells each shim its new owner down the lifeline
//     (watchdog.FormatOwner).
//
// Backends on other hosts (State.Remote) cross differently: old has sent
// their watchdogs "handover <one-time secret> <window>" (remotewd), and
// new claims each over its own connection with that secret. Only the
// forward's listening socket is passed, where old has one to pass (on
// Unix: a Windows socket is not a file Go can pass): at RemoteListenerFD,
// after every local backend's fds, so that the local port answers
// throughout. A successor that does not know State.Remote (an older
// version, a rollback) ignores it: those backends end with their window,
// and it starts them anew.
//
// A restart-mode successor inherits nothing; EnvWait tells it how
// long to wait for old's locks.

// AdoptFDFlag is the successor's (hidden) flag naming the state pipe (an
// option of the launcher's, listed in settings.Options).
const AdoptFDFlag = settings.FlagAdoptFD

// AdoptJobFlag is the successor's (hidden) flag naming the launcher's job
// (Windows only).
const AdoptJobFlag = settings.FlagAdoptJob

// StateFD is the state pipe's fd in the successor (Unix).
const StateFD = 3

// MaxState bounds the state a successor reads.
const MaxState = 1 << 20

// AdoptFDArg is the argument that tells a successor where the state is:
// StateFD on Unix, the pipe's handle value on Windows.
func AdoptFDArg(n int) string { return "--" + AdoptFDFlag + "=" + strconv.Itoa(n) }

// AdoptJobArg is the argument that tells a successor which inherited
// handle is the launcher's job (Windows).
func AdoptJobArg(n int) string { return "--" + AdoptJobFlag + "=" + strconv.Itoa(n) }

// BackendFDs are the fds backend i's files have in the successor (Unix).
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
	// File descriptors (Unix) or handle values (Windows) in the successor.
	Lifeline int `json:"lifeline_fd"`
	Stdout   int `json:"stdout_fd"`
	Stderr   int `json:"stderr_fd"`
	// Job is the handle value of the job holding the tree (Windows); 0
	// for none.
	Job int `json:"job,omitempty"`
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

// newState lays the backends out on the wire: their descriptions, with
// the numbers their files (and jobs) will have in the successor, which
// in gives them (the per-OS inheritance: see the wire protocol above),
// the local backends first; the views with a RemoteHandover go after
// them (addRemote).
func newState(from proc.Identity, fromNonce string, views []View, in *inheritance) (State, error) {
	st := State{From: from, FromNonce: fromNonce}
	var remote []View
	for _, v := range views {
		if v.RemoteHandover != nil {
			remote = append(remote, v)
			continue
		}
		b := Backend{Status: v.Status, Nonce: v.Nonce, Argv: v.Argv, Shim: v.Shim, Backend: v.Backend, Token: v.Token, Cgroup: v.Cgroup}
		var err error
		for _, f := range []struct {
			to   *int
			file *os.File
		}{{&b.Lifeline, v.Lifeline}, {&b.Stdout, v.Stdout}, {&b.Stderr, v.Stderr}} {
			if *f.to, err = in.file(f.file, false); err != nil {
				return st, err
			}
		}
		if b.Job, err = in.job(v.Job); err != nil {
			return st, err
		}
		st.Backends = append(st.Backends, b)
	}
	return st, addRemote(&st, remote, in)
}

// addRemote lays the remote backends out after the local ones: their
// descriptions, and the listeners to pass (our copies, given away).
func addRemote(st *State, remote []View, in *inheritance) error {
	for _, v := range remote {
		h := v.RemoteHandover
		b := RemoteBackend{
			Status: v.Status, Host: h.Host, OwnershipID: h.OwnershipID, SpawnNonce: h.SpawnNonce, Secret: h.Secret, Nonce: h.Nonce,
			Token: h.Token, Shim: h.Shim, Backend: h.Backend, ClaimSocket: h.ClaimSocket, RemotePort: h.RemotePort, Socket: h.Socket, LocalPort: h.LocalPort,
		}
		if h.Listener != nil {
			var err error
			if b.Listener, err = in.file(h.Listener, true); err != nil {
				return err
			}
		}
		st.Remote = append(st.Remote, b)
	}
	return nil
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
// never make us treat an unrelated descriptor as a lifeline. held are the
// numbers the successor took before reading (the state pipe's and, on
// Windows, the launcher job's, see heldNumbers): no backend may name one.
func Read(r io.Reader, held []int) (State, error) {
	var st State
	if err := json.NewDecoder(io.LimitReader(r, MaxState)).Decode(&st); err != nil {
		return st, fmt.Errorf("handoff: read state: %w", err)
	}
	if err := st.From.Validate(); err != nil {
		return st, fmt.Errorf("handoff: state names no valid predecessor: %w", err)
	}
	for _, b := range st.Backends {
		if b.Nonce == "" {
			return st, errors.New("handoff: a backend without a nonce")
		}
	}
	for _, b := range st.Remote {
		switch {
		case b.Nonce == "" || b.Host == "":
			return st, fmt.Errorf("handoff: remote backend %q without a nonce or host", b.Status.Name)
		case len(b.Secret) != 64 || b.ClaimSocket == "":
			return st, fmt.Errorf("handoff: remote backend %q without a one-time secret or claim socket", b.Status.Name)
		}
	}
	// Each number must be one the layout gives (Unix) or a handle of the
	// right kind (Windows): a confused predecessor can never make us treat
	// an unrelated descriptor as a lifeline.
	return st, checkInherited(st, held)
}

// EnvWait tells a restart-mode successor how long to wait for the
// single-instance lock its predecessor is releasing.
const EnvWait = "HERMES_DESKTOP_HANDOFF_WAIT"
