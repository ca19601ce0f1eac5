package unit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// JournalFile is, in the install directory, the record of a replacement of the
// unit in progress (Swap, Restore): written and fsynced before the first
// entry moves, rewritten when the replacement is decided either way,
// removed when it is over. Its presence at a start means a replacement was
// cut short; Recover finishes it.
const JournalFile = ".update-journal"

// maxJournal bounds the journal a start reads.
const maxJournal = 64 << 10

// Ops: what a replacement is for. It decides what is kept afterwards:
// an update keeps the unit it replaced (the .old a rollback puts back), a
// rollback keeps nothing of the failed unit.
const (
	OpUpdate   = "update"
	OpRollback = "rollback"
)

// Phases of a journal: under way, or decided (the entries are all in
// their final place; only removing what is left remains).
const (
	phaseMoving   = "moving"
	phaseDone     = "done"     // the incoming unit is in place
	phasePutBack  = "put-back" // the unit that was in place is back
	journalFormat = 1
)

// Journal is the record of one replacement of the unit in Dir: each
// entry moves from Dir to Aside (when Dir has it), then from In to Dir
// (when In has it), the executable last. In and Aside are directories in
// Dir, named by their base names.
type Journal struct {
	Format  int    `json:"format"`
	Op      string `json:"op"`
	Phase   string `json:"phase"`
	From    string `json:"from"` // the version in place before
	To      string `json:"to"`   // the version the replacement puts in place
	In      string `json:"in"`
	Aside   string `json:"aside"`
	Entries []Move `json:"entries"`
	// Owner is the process doing the replacement: while it lives, nobody
	// else touches the unit.
	Owner   proc.Identity `json:"owner"`
	Started time.Time     `json:"started"`
}

// Move is one top-level entry of the unit and where it is found when the
// replacement starts: Cur, in the install directory; In, in the incoming
// unit.
type Move struct {
	Name string `json:"name"`
	Cur  bool   `json:"cur"`
	In   bool   `json:"in"`
}

// write records j in dir's journal, durably.
func (j *Journal) write(dir string) error {
	if err := lockfile.WriteJSON(filepath.Join(dir, JournalFile), j); err != nil {
		return fmt.Errorf("unit: journal: %w", err)
	}
	return nil
}

// readJournal reads dir's journal; fs.ErrNotExist when there is none.
func readJournal(dir string) (*Journal, error) {
	path := filepath.Join(dir, JournalFile)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fs.ErrNotExist
	}
	data, err := lockfile.ReadLimited(path, maxJournal)
	if err != nil {
		return nil, fmt.Errorf("unit: journal: %w", err)
	}
	var j Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("unit: journal %s: %w", path, err)
	}
	if err := j.validate(); err != nil {
		return nil, fmt.Errorf("unit: journal %s: %w", path, err)
	}
	return &j, nil
}

// validate refuses a journal that could make a recovery move anything but
// a unit's entries between directories of the install.
func (j *Journal) validate() error {
	switch {
	case j.Format != journalFormat:
		return fmt.Errorf("format %d, want %d", j.Format, journalFormat)
	case j.Op != OpUpdate && j.Op != OpRollback:
		return fmt.Errorf("op %q", j.Op)
	case j.Phase != phaseMoving && j.Phase != phaseDone && j.Phase != phasePutBack:
		return fmt.Errorf("phase %q", j.Phase)
	case !sideDir(j.In) || !sideDir(j.Aside) || j.In == j.Aside:
		return fmt.Errorf("directories %q and %q are not two of the install's own", j.In, j.Aside)
	case len(j.Entries) == 0 || !IsExe(j.Entries[len(j.Entries)-1].Name) || !j.Entries[len(j.Entries)-1].In:
		return errors.New("the executable does not come in last")
	}
	seen := map[string]bool{}
	for _, m := range j.Entries {
		if !IsName(m.Name) || seen[m.Name] || !(m.Cur || m.In) {
			return fmt.Errorf("entry %+v", m)
		}
		seen[m.Name] = true
	}
	return nil
}

// sideDir reports whether name can be one of the directories a
// replacement moves entries to and from: one element, not the unit's.
func sideDir(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\:`) &&
		name != JournalFile && !IsName(name)
}
