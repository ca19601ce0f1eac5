package run

import (
	"fmt"
	"os"
	"syscall"

	"hermes-desktop/contract/hermes"
)

// ExitStatus is how a backend process ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when a signal ended the process.
	Code int
	// Signal is the terminating signal, or 0.
	Signal syscall.Signal
	// Unknown is set when the status could not be collected: the process
	// was adopted from a previous launcher and is not our child.
	Unknown bool
	// Why, when set, says in words how the run ended where no exit code
	// tells it (a remote run whose connection failed, say).
	Why string
	// Permanent: starting again cannot help until a person acts (an
	// unknown host key, say); the backend fails at once.
	Permanent bool
}

// StatusOf is how a process we waited for ended, from its wait status.
func StatusOf(ps *os.ProcessState) ExitStatus {
	if ps == nil {
		return ExitStatus{Code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return ExitStatus{Code: ps.ExitCode()}
}

// Exit codes with a meaning in the shell; those of the Hermes contract are
// hermes.ExitPortInUse and hermes.ExitRefused.
const (
	exitNotExecutable = 126
	exitNotFound      = 127
)

// String explains the status in words a user can act on.
func (e ExitStatus) String() string {
	if e.Why != "" {
		return e.Why
	}
	if e.Unknown {
		return "exited (status unknown: it was adopted from the previous launcher)"
	}
	if e.Signal != 0 {
		return fmt.Sprintf("killed by signal %d (%v)", int(e.Signal), e.Signal)
	}
	switch e.Code {
	case 0:
		return "exited normally (code 0)"
	case hermes.ExitPortInUse:
		return fmt.Sprintf("exited with code %d: its port is in use", e.Code)
	case hermes.ExitRefused:
		return fmt.Sprintf("exited with code %d: it refused to attach to an existing backend", e.Code)
	case exitNotExecutable:
		return "exited with code 126: the command is not executable"
	case exitNotFound:
		return "exited with code 127: the command was not found"
	}
	if e.Code > 128 && e.Code < 160 {
		sig := syscall.Signal(e.Code - 128)
		return fmt.Sprintf("exited with code %d (a process in it was killed by signal %d, %v)", e.Code, int(sig), sig)
	}
	return fmt.Sprintf("exited with code %d", e.Code)
}
