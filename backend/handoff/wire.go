package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

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

// State is what old tells new in adopt mode.
type State struct {
	From      proc.Identity `json:"from"`
	FromNonce string        `json:"from_nonce"`
	Backends  []Backend     `json:"backends"`
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
	// Remote: the backend runs on another host over this app's ssh
	// connection, which ends with it; the successor starts it anew.
	Remote bool
	// Handover is the instance's own account of itself (zero when
	// External).
	run.Handover
}

// NewState lays the backends out on the wire: their descriptions,
// with fds, and the files to pass, in fd order after the state pipe.
func NewState(from proc.Identity, fromNonce string, views []View) (State, []*os.File) {
	st := State{From: from, FromNonce: fromNonce}
	var files []*os.File
	for i, v := range views {
		lifeline, stdout, stderr := BackendFDs(i)
		st.Backends = append(st.Backends, Backend{
			Status: v.Status, Nonce: v.Nonce, Argv: v.Argv, Shim: v.Shim, Backend: v.Backend, Token: v.Token, Cgroup: v.Cgroup,
			Lifeline: lifeline, Stdout: stdout, Stderr: stderr,
		})
		files = append(files, v.Lifeline, v.Stdout, v.Stderr)
	}
	return st, files
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
	return st, nil
}

// EnvWait tells a restart-mode successor how long to wait for the
// single-instance lock its predecessor is releasing.
const EnvWait = "HERMES_DESKTOP_HANDOFF_WAIT"
