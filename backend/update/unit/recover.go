package unit

import (
	"errors"
	"fmt"
	"io/fs"

	"hermes-desktop/platform/proc"
)

// Recovery is what Recover did with a replacement that was cut short.
type Recovery struct {
	Op   string // OpUpdate or OpRollback
	From string // the version in place before it
	To   string // the version it was putting in place
	// Done: it was finished, so To is installed; else it was put back,
	// and From is.
	Done bool
}

// Installed is the version the install holds after the recovery.
func (r Recovery) Installed() string {
	if r.Done {
		return r.To
	}
	return r.From
}

// String says what happened, for the log and the notice.
func (r Recovery) String() string {
	what := fmt.Sprintf("an update from %s to %s", r.From, r.To)
	if r.Op == OpRollback {
		what = fmt.Sprintf("a rollback from %s to %s", r.From, r.To)
	}
	if r.Done {
		return fmt.Sprintf("%s was cut short after its last step; it was finished: %s is installed, whole", what, r.To)
	}
	return fmt.Sprintf("%s was cut short; it was undone: %s is installed, whole", what, r.From)
}

// Recover finishes a replacement of the unit in dir that was cut short:
// its journal is there and the process that wrote it is gone. If the
// executable had come in, the replacement is finished; else every entry
// is put back where it was. It returns what it did, or nil when there was
// nothing to recover. A journal whose writer still runs is a replacement
// in progress: ErrBusy, and nothing is touched.
func Recover(dir string) (*Recovery, error) {
	j, err := readJournal(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if writerRuns(j.Owner) {
		return nil, fmt.Errorf("%w: pid %d has been replacing its unit (%s to %s) since %s", ErrBusy, j.Owner.PID, j.From, j.To, j.Started.Format("15:04:05"))
	}
	done := j.Phase == phaseDone
	if j.Phase == phaseMoving {
		_, in, _ := j.paths(dir, j.Entries[len(j.Entries)-1].Name)
		done = !exists(in) // the executable came in: the replacement is past its point of no return
	}
	if err := settle(dir, j, done); err != nil {
		return nil, fmt.Errorf("unit: recover %s: %w", dir, err)
	}
	return &Recovery{Op: j.Op, From: j.From, To: j.To, Done: done}, nil
}

// writerRuns reports whether the journal's writer still runs: the same
// process (the identity carries its start time, so a reused PID is not
// it), not exited (a zombie, or on Windows a process object someone still
// holds a handle on, is not running).
func writerRuns(id proc.Identity) bool {
	h, err := proc.Open(id)
	if err != nil {
		return false
	}
	defer h.Close()
	return !h.Exited()
}
