package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Sentinel errors callers branch on.
var (
	// ErrNotFound means no process has the PID (it exited and was collected).
	ErrNotFound = errors.New("proc: no such process")
	// ErrMismatch means a process has the PID but it is not the one named:
	// the PID was reused, or it belongs to another boot.
	ErrMismatch = errors.New("proc: identity mismatch (pid reused)")
	// ErrBadMarker means a start marker string is malformed.
	ErrBadMarker = errors.New("proc: malformed start marker")
)

// maxPID bounds PIDs we accept from files and flags: Linux's PID_MAX_LIMIT
// (4194304). Larger numbers are corrupt input, not processes.
const maxPID = 4194304

// Identity names one process durably: the PID plus the start marker the OS
// assigned when it started (and, on Linux, the boot it started in). The zero
// Identity names no process.
type Identity struct {
	PID int `json:"pid"`
	// Start is the start marker: "linux:<starttime ticks>" on Linux and
	// "winms:<creation ms>" on Windows (the Hermes formats), and on macOS
	// "kinfo:<seconds>.<microseconds>", exact and free of time zones
	// (HermesMarker gives Hermes' "ps:<lstart>" form).
	Start string `json:"start"`
	// BootID is /proc/sys/kernel/random/boot_id on Linux; empty elsewhere.
	// Empty means "unknown" and matches any boot.
	BootID string `json:"boot_id,omitempty"`
}

// String formats the identity for logs.
func (id Identity) String() string {
	return fmt.Sprintf("pid %d (%s)", id.PID, id.Start)
}

// Validate reports whether id is well formed enough to act on.
func (id Identity) Validate() error {
	if id.PID <= 0 || id.PID > maxPID {
		return fmt.Errorf("proc: pid %d out of range", id.PID)
	}
	if _, _, err := ParseMarker(id.Start); err != nil {
		return err
	}
	return nil
}

// Same reports whether a and b name the same process. Boot ids are compared
// only when both are known.
func (a Identity) Same(b Identity) bool {
	if a.PID != b.PID || a.Start == "" || !sameStart(a.Start, b.Start) {
		return false
	}
	return a.BootID == "" || b.BootID == "" || a.BootID == b.BootID
}

// HermesMarker is the start marker in the form Hermes computes for itself,
// for HERMES_PARENT_START_MARKER.
func HermesMarker(id Identity) string { return hermesMarker(id.Start) }

// Lookup reads the identity of the process that has pid now.
func Lookup(pid int) (Identity, error) {
	if pid <= 0 || pid > maxPID {
		return Identity{}, fmt.Errorf("proc: lookup pid %d: out of range", pid)
	}
	start, err := readStartMarker(pid)
	if err != nil {
		return Identity{}, err
	}
	return Identity{PID: pid, Start: start, BootID: BootID()}, nil
}

// Self returns the identity of the calling process.
func Self() (Identity, error) { return Lookup(os.Getpid()) }

// Check verifies that id still names a live process: nil if it does,
// ErrNotFound if the PID is free, ErrMismatch if the PID was reused.
func Check(id Identity) error {
	if err := id.Validate(); err != nil {
		return err
	}
	now, err := Lookup(id.PID)
	if err != nil {
		return err
	}
	if !now.Same(id) {
		return fmt.Errorf("%w: %s is now %s", ErrMismatch, id, now)
	}
	return nil
}

// Alive reports whether id names a live process. Errors other than "gone"
// and "reused" (for example permission problems) are returned so callers can
// fail closed.
func Alive(id Identity) (bool, error) {
	err := Check(id)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrMismatch):
		return false, nil
	default:
		return false, err
	}
}

// ParseMarker splits a start marker into its scheme and value and checks the
// value against the scheme's format. It accepts the markers Hermes writes
// ("linux:", "ps:", "darwin:", "winms:").
func ParseMarker(marker string) (scheme, value string, err error) {
	scheme, value, ok := strings.Cut(marker, ":")
	if !ok || value == "" || len(marker) > 128 {
		return "", "", fmt.Errorf("%w: %q", ErrBadMarker, marker)
	}
	switch scheme {
	case "linux", "winms":
		n, perr := strconv.ParseUint(value, 10, 64)
		if perr != nil || strconv.FormatUint(n, 10) != value {
			return "", "", fmt.Errorf("%w: %q: value is not a decimal number", ErrBadMarker, marker)
		}
	case "kinfo":
		sec, usec, ok := strings.Cut(value, ".")
		_, e1 := strconv.ParseUint(sec, 10, 64)
		_, e2 := strconv.ParseUint(usec, 10, 32)
		if !ok || e1 != nil || e2 != nil || len(usec) != 6 {
			return "", "", fmt.Errorf("%w: %q: want kinfo:<seconds>.<6-digit microseconds>", ErrBadMarker, marker)
		}
	case "ps", "darwin":
		for _, r := range value {
			if r < 0x20 || r == 0x7f {
				return "", "", fmt.Errorf("%w: %q: control character", ErrBadMarker, marker)
			}
		}
	default:
		return "", "", fmt.Errorf("%w: %q: unknown scheme", ErrBadMarker, marker)
	}
	return scheme, value, nil
}

// Running reports whether id names a process that has not exited: like
// Alive, but a zombie (exited, waiting for its parent to collect it) counts as
// gone. Use it where the question is "can this process still act?".
func Running(id Identity) (bool, error) {
	alive, err := Alive(id)
	if err != nil || !alive {
		return alive, err
	}
	p, err := Stat(id.PID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return p.Start == id.Start && !p.Zombie, nil
}
