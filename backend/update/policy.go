package update

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// Files in the updates directory (<state>/updates), each JSON, 0600,
// written atomically.
const (
	// BadFile lists versions that failed their health window: never
	// offered again (a newer version is).
	BadFile = "bad.json"
	// SkipFile names the version the user chose to skip.
	SkipFile = "skip.json"
	// RollbackFile tells the next instance that an update was rolled back,
	// once: it is removed when read.
	RollbackFile = "rollback.json"
	// ProbationFile describes the health window in progress.
	ProbationFile = "probation.json"
)

const maxPolicyFile = 64 << 10

// BadVersion is one version that failed after it took over.
type BadVersion struct {
	Version string    `json:"version"`
	Reason  string    `json:"reason"`
	At      time.Time `json:"at"`
}

type badList struct {
	Versions []BadVersion `json:"versions"`
}

// MarkBad adds a version to BadFile (the last 50 are kept).
func MarkBad(dir string, b BadVersion) error {
	var list badList
	if err := readJSON(filepath.Join(dir, BadFile), &list); err != nil {
		list = badList{} // an unreadable list is replaced: the new entry matters most
	}
	list.Versions = slices.DeleteFunc(list.Versions, func(v BadVersion) bool { return v.Version == b.Version })
	list.Versions = append(list.Versions, b)
	if n := len(list.Versions); n > 50 {
		list.Versions = list.Versions[n-50:]
	}
	return writeJSON(dir, BadFile, list)
}

// IsBad reports whether version is in BadFile.
func IsBad(dir, version string) (BadVersion, bool) {
	var list badList
	if readJSON(filepath.Join(dir, BadFile), &list) != nil {
		return BadVersion{}, false
	}
	for _, v := range list.Versions {
		if v.Version == version {
			return v, true
		}
	}
	return BadVersion{}, false
}

type skipped struct {
	Version string `json:"version"`
}

// Skip remembers that the user skipped version ("" forgets it).
func Skip(dir, version string) error {
	if version != "" {
		if _, err := ParseVersion(version); err != nil {
			return err
		}
	}
	return writeJSON(dir, SkipFile, skipped{Version: version})
}

// Skipped is the version the user skipped, "" for none.
func Skipped(dir string) string {
	var s skipped
	if readJSON(filepath.Join(dir, SkipFile), &s) != nil {
		return ""
	}
	return s.Version
}

// Rollback says that an update was undone, and why.
type Rollback struct {
	From   string    `json:"from"` // the version that failed
	To     string    `json:"to"`   // the version restored
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	// BackendsKept: the restored version took the running backends over;
	// false means they were lost with the failed version and restarted.
	BackendsKept bool `json:"backends_kept"`
}

// RecordRollback writes RollbackFile for the next instance.
func RecordRollback(dir string, r Rollback) error { return writeJSON(dir, RollbackFile, r) }

// TakeRollback reads and removes RollbackFile; nil when there is none.
func TakeRollback(dir string) *Rollback {
	path := filepath.Join(dir, RollbackFile)
	var r Rollback
	if readJSON(path, &r) != nil {
		return nil
	}
	os.Remove(path)
	return &r
}

// Probation is the health window of a version that just took over. The
// old instance, which watches the window, writes it before the handoff and
// removes it when the window is over, either way.
type Probation struct {
	Version  string `json:"version"`  // the version on probation
	Previous string `json:"previous"` // the version it replaced, kept as .old
	Target   Target `json:"target"`
	// Exe is the executable to start: Target itself, or inside a bundle.
	Exe string `json:"exe"`
	// Watcher is the old instance watching the window.
	Watcher proc.Identity `json:"watcher"`
	Started time.Time     `json:"started_at"`
	Window  time.Duration `json:"window_ns"`
}

// Until is when the window ends.
func (p Probation) Until() time.Time { return p.Started.Add(p.Window) }

// WriteProbation records the window in progress.
func WriteProbation(dir string, p Probation) error { return writeJSON(dir, ProbationFile, p) }

// ReadProbation reads the window in progress; nil when there is none.
func ReadProbation(dir string) *Probation {
	var p Probation
	if readJSON(filepath.Join(dir, ProbationFile), &p) != nil {
		return nil
	}
	return &p
}

// ClearProbation removes ProbationFile.
func ClearProbation(dir string) error {
	err := os.Remove(filepath.Join(dir, ProbationFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// PruneDownloads removes downloaded versions other than keep.
func PruneDownloads(dir, keep string) {
	if v, err := ParseVersion(keep); err == nil {
		keep = v.String() // as Download names its directory
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, err := ParseVersion(e.Name()); err == nil && e.IsDir() && e.Name() != keep {
			os.RemoveAll(filepath.Join(dir, e.Name())) // a download of ours, by its version-shaped name
		}
	}
}

// PruneOlder removes downloaded versions not newer than current: what an
// update to current (or before it) left behind. A newer one, maybe half
// downloaded, stays to be resumed.
func PruneOlder(dir, current string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, err := ParseVersion(e.Name()); err == nil && e.IsDir() && !Newer(e.Name(), current) {
			os.RemoveAll(filepath.Join(dir, e.Name())) // a download of ours, by its version-shaped name
		}
	}
}

// readJSON reads one of our small private files.
func readJSON(path string, v any) error {
	data, err := lockfile.ReadLimited(path, maxPolicyFile)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// writeJSON writes one of our files as indented JSON (writePrivate).
func writeJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("update: encode %s: %w", name, err)
	}
	return writePrivate(dir, name, append(data, '\n'))
}

// writePrivate writes one of our files atomically, 0600, creating dir (0700)
// when needed.
func writePrivate(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("update: %w", classifyWrite(err))
	}
	if err := lockfile.WriteFileAtomic(filepath.Join(dir, name), data); err != nil {
		return fmt.Errorf("update: %w", classifyWrite(err))
	}
	return nil
}
