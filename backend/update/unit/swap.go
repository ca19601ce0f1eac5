package unit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"hermes-desktop/platform/proc"
)

// The replacement of a unit in its install directory. Windows shapes it:
// a running executable can be renamed but not deleted or replaced, and a
// directory that holds one cannot be renamed. So no directory that may
// hold the executable (the install, the incoming unit, the one set aside)
// is ever renamed: each top-level entry moves on its own, by renames
// within the install directory (one file system), the executable last.
//
// A crash can stop it between any two renames; the journal, written
// before the first, says what was where. The executable decides which
// unit the install is: until it has come in, the replacement is put back
// (every entry that came in goes back where it came from, every entry set
// aside comes back); once it has, it is finished. The executable a start
// runs is thus always the version Recover leaves installed, whole.

// Versions names the two sides of a replacement, for the journal and for
// what a recovery says.
type Versions struct{ From, To string }

// Swap replaces the unit in dir with the one in dir/staged (a directory
// extracted by Extract and smoke-tested), and keeps the replaced one in
// dir/old, which must be an empty directory. On an error every entry is
// back in place, and staged is removed.
func Swap(dir, staged, old string, v Versions) error {
	return replace(dir, OpUpdate, staged, old, v)
}

// Restore puts the unit kept in dir/old back in place of the one in dir
// (the rollback of a Swap); the replaced unit goes to dir/failed (created
// here), removed afterwards as far as it can be: on Windows a failed
// executable that still runs stays, for the caller to remove later.
func Restore(dir, old, failed string, v Versions) error {
	if err := os.Mkdir(filepath.Join(dir, failed), 0o755); err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	return replace(dir, OpRollback, old, failed, v)
}

// replace runs one journaled replacement: the entries of dir/in into dir,
// those they replace into dir/aside.
func replace(dir, op, in, aside string, v Versions) error {
	self, err := proc.Self()
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	moves, err := plan(dir, in)
	if err != nil {
		return err
	}
	j := &Journal{Format: journalFormat, Op: op, Phase: phaseMoving, From: v.From, To: v.To,
		In: in, Aside: aside, Entries: moves, Owner: self, Started: time.Now().UTC()}
	if err := j.write(dir); err != nil {
		return err
	}
	faultStop(0, "journal written")
	for i, m := range moves {
		if err := j.forward(dir, m); err != nil {
			if perr := settle(dir, j, false); perr != nil {
				return fmt.Errorf("unit: %s: %w; and putting it back failed: %w (the next start retries)", m.Name, err, perr)
			}
			return fmt.Errorf("unit: %s: %w; the unit in place is whole again", m.Name, err)
		}
		faultStop(i+1, m.Name)
	}
	return settle(dir, j, true)
}

// plan lists the entries to move: every unit name found in dir or in
// dir/in, sorted, the executable last. The incoming side must hold one.
func plan(dir, in string) ([]Move, error) {
	var moves []Move
	exe := -1
	for _, name := range names {
		m := Move{Name: name, Cur: exists(filepath.Join(dir, name)), In: exists(filepath.Join(dir, in, name))}
		if !m.Cur && !m.In {
			continue
		}
		if IsExe(name) && m.In {
			exe = len(moves)
		}
		moves = append(moves, m)
	}
	if exe < 0 {
		return nil, fmt.Errorf("%w: %s holds no executable", ErrFormat, filepath.Join(dir, in))
	}
	last := moves[exe]
	moves = append(slices.Delete(moves, exe, exe+1), last)
	return moves, nil
}

// forward moves one entry: the one in place aside, the incoming one in.
func (j *Journal) forward(dir string, m Move) error {
	cur, in, aside := j.paths(dir, m.Name)
	if m.Cur && (!m.In || exists(in)) && !exists(aside) {
		if err := setAside(cur, aside, m.In); err != nil {
			return err
		}
	}
	if m.In && exists(in) {
		return os.Rename(in, cur)
	}
	return nil
}

// back undoes one entry's move: the incoming one back to In, the one set
// aside back in place.
func (j *Journal) back(dir string, m Move) error {
	cur, in, aside := j.paths(dir, m.Name)
	if m.In && !exists(in) && exists(cur) {
		if err := os.Rename(cur, in); err != nil {
			return err
		}
	}
	if m.Cur && exists(aside) {
		return os.Rename(aside, cur)
	}
	return nil
}

// paths are where an entry is in place, incoming and set aside.
func (j *Journal) paths(dir, name string) (cur, in, aside string) {
	return filepath.Join(dir, name), filepath.Join(dir, j.In, name), filepath.Join(dir, j.Aside, name)
}

// settle finishes a replacement (done) or puts it back (!done), records
// the decision, removes what is not kept and then the journal.
func settle(dir string, j *Journal, done bool) error {
	if j.Phase == phaseMoving {
		for i := range j.Entries {
			var err error
			if done {
				err = j.forward(dir, j.Entries[i])
			} else {
				err = j.back(dir, j.Entries[len(j.Entries)-1-i])
			}
			if err != nil {
				return fmt.Errorf("unit: %w", err)
			}
		}
		j.Phase = phasePutBack
		if done {
			j.Phase = phaseDone
		}
		if err := j.write(dir); err != nil {
			return err
		}
		faultStop(len(j.Entries)+1, "outcome journaled: "+j.Phase)
	}
	j.tidy(dir)
	if err := os.Remove(filepath.Join(dir, JournalFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unit: %w", err)
	}
	syncDir(dir)
	return nil
}

// tidy removes, once a replacement is decided, what it does not keep: the
// emptied side, and the unit nobody wants any more (the staged copy of an
// update put back, the failed unit of a rollback). Best effort: what
// cannot go now (a running executable on Windows) is the caller's to
// remove later.
func (j *Journal) tidy(dir string) {
	in, aside := filepath.Join(dir, j.In), filepath.Join(dir, j.Aside)
	switch {
	case j.Phase == phaseDone && j.Op == OpUpdate:
		os.Remove(in) // empty now; aside holds the unit replaced, kept
	case j.Phase == phaseDone:
		os.Remove(in)
		os.RemoveAll(aside) // the failed unit
	case j.Op == OpUpdate:
		os.Remove(aside)
		os.RemoveAll(in) // the staged copy, not installed
	default:
		os.Remove(aside) // the unit to roll back to stays kept
	}
}

// Discard removes old, the unit an earlier update kept aside (or the
// single file versions before units kept). What cannot be removed because
// it still runs (Windows) is moved into del, a new name beside it, for the
// caller to remove later: a file by a rename, a directory entry by entry
// (one holding a running executable cannot be renamed, its entries can).
func Discard(old, del string) error {
	fi, err := os.Lstat(old)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || os.RemoveAll(old) == nil {
		return err
	}
	if !fi.IsDir() {
		return os.Rename(old, del)
	}
	if err := os.Mkdir(del, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(old)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(old, e.Name()), filepath.Join(del, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(old)
}

// exists reports whether path names anything (a link too).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// syncDir makes renames durable; best effort (Windows cannot).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
