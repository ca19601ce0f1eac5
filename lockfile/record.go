package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"hermes-desktop/platform/proc"
)

// RecordSchema is the version of the record format written by this build.
// Records of any other version are foreign and set aside.
const RecordSchema = 1

// Limits on what a record may contain; anything larger is corrupt.
const (
	MaxRecordSize = 64 << 10
	// MaxDescendants bounds the descendants a record lists.
	MaxDescendants = 512
	maxArgs        = 256
	maxArgLen      = 4096
	recordsDir     = "records"
	recordExt      = ".json"
	corruptExt     = ".corrupt"
)

// ErrCorrupt means a record failed to parse or validate.
var ErrCorrupt = errors.New("lockfile: corrupt record")

// namePattern is compiled on first use (see creationTimeRE).
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// ValidName reports whether s can name a backend: letters, digits, '.',
// '_' and '-', starting with a letter or digit, at most 64 bytes (it
// becomes part of file names).
func ValidName(s string) bool { return namePattern().MatchString(s) }

// Owner names the launcher instance that owns a backend.
type Owner struct {
	Nonce string `json:"nonce"`
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

// Identity returns the owner process's identity.
func (o Owner) Identity(bootID string) proc.Identity {
	return proc.Identity{PID: o.PID, Start: o.Start, BootID: bootID}
}

// Record is the ownership record of one running backend: positive evidence,
// checked by PID, start marker, boot and nonce, that this launcher started it.
type Record struct {
	Schema int    `json:"schema"`
	Name   string `json:"name"`
	// Nonce is the backend's 128-bit nonce; the record file is <Nonce>.json.
	Nonce  string `json:"nonce"`
	BootID string `json:"boot_id"`
	// Shim is the watchdog shim; nil when backends run without one.
	Shim *proc.Identity `json:"shim,omitempty"`
	// Backend is nil for the moment between spawning a shim and hearing
	// which PID it gave the backend.
	Backend *proc.Identity `json:"backend,omitempty"`
	PGID    int            `json:"pgid"`
	Argv    []string       `json:"argv"`
	Port    int            `json:"port"`
	Profile string         `json:"profile,omitempty"`
	// Descendants are the backend's descendants the launcher's sampler last
	// saw: positive evidence for processes (MCP servers started with a
	// scrubbed environment) that carry nothing else tying them to it.
	Descendants []proc.Identity `json:"descendants,omitempty"`
	Owner       Owner           `json:"owner"`
	Created     time.Time       `json:"created"`
	// Cgroup is the cgroup v2 path (in the hierarchy, as /proc/PID/cgroup
	// writes it) the backend's tree was started in, ending in
	// CgroupName(Nonce); "" when the backend has none (another OS, no
	// writable cgroup, or a record from before cgroups). Optional, so
	// records without it still parse.
	Cgroup string `json:"cgroup,omitempty"`
}

// Leader returns the identity at the top of the backend's tree: the shim if
// there is one, else the backend.
func (r *Record) Leader() proc.Identity {
	if r.Shim != nil {
		return *r.Shim
	}
	if r.Backend != nil {
		return *r.Backend
	}
	return proc.Identity{}
}

// Validate checks every field against the schema.
func (r *Record) Validate() error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	r.validateOwnership(bad)
	r.validateLeaders(bad)
	r.validateTree(bad)
	r.validateEndpoint(bad)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(errs, "; "))
	}
	return nil
}

// validateOwnership checks what says whose record this is: the schema, the
// backend's name and nonce, and the launcher that owns it.
func (r *Record) validateOwnership(bad func(string, ...any)) {
	if r.Schema != RecordSchema {
		bad("schema %d, want %d", r.Schema, RecordSchema)
	}
	if !ValidName(r.Name) {
		bad("name %q", r.Name)
	}
	if ValidNonce(r.Nonce) != nil {
		bad("nonce %q", r.Nonce)
	}
	if ValidNonce(r.Owner.Nonce) != nil {
		bad("owner nonce %q", r.Owner.Nonce)
	}
	if err := r.Owner.Identity("").Validate(); err != nil {
		bad("owner: %v", err)
	}
	if r.Created.IsZero() {
		bad("no creation time")
	}
}

// validateLeaders checks the shim's and the backend's identities: at least
// one, each valid and from the record's boot.
func (r *Record) validateLeaders(bad func(string, ...any)) {
	if r.Shim == nil && r.Backend == nil {
		bad("neither shim nor backend")
	}
	for _, l := range []struct {
		what string
		id   *proc.Identity
	}{{"shim", r.Shim}, {"backend", r.Backend}} {
		if l.id == nil {
			continue
		}
		if err := l.id.Validate(); err != nil {
			bad("%s: %v", l.what, err)
		}
		if l.id.BootID != "" && l.id.BootID != r.BootID {
			bad("%s boot id differs from the record's", l.what)
		}
	}
}

// validateTree checks what a reaper acts on below the leader: the
// descendants, the process group, the command line and the cgroup.
func (r *Record) validateTree(bad func(string, ...any)) {
	if len(r.Descendants) > MaxDescendants {
		bad("%d descendants", len(r.Descendants))
	}
	for _, d := range r.Descendants {
		if err := d.Validate(); err != nil {
			bad("descendant: %v", err)
			break
		}
	}
	if r.PGID < 0 || r.PGID > 4194304 {
		bad("pgid %d", r.PGID)
	}
	if len(r.Argv) == 0 || len(r.Argv) > maxArgs {
		bad("%d arguments", len(r.Argv))
	}
	for _, a := range r.Argv {
		if len(a) > maxArgLen {
			bad("argument of %d bytes", len(a))
			break
		}
	}
	if r.Cgroup != "" && !validCgroup(r.Cgroup, r.Nonce) {
		bad("cgroup %q is not a clean absolute path ending in %s", r.Cgroup, CgroupName(r.Nonce))
	}
}

// validateEndpoint checks the port, profile and boot id the record gives.
func (r *Record) validateEndpoint(bad func(string, ...any)) {
	if r.Port < 0 || r.Port > 65535 {
		bad("port %d", r.Port)
	}
	if len(r.Profile) > 1024 || len(r.BootID) > 128 {
		bad("oversized profile or boot id")
	}
}

// maxCgroupPath bounds a recorded cgroup path (the kernel's PATH_MAX).
const maxCgroupPath = 4096

// validCgroup reports whether p can be the cgroup of the backend with this
// nonce: absolute, clean, bounded, and named for that nonce. A reaper acts
// on a recorded cgroup only if it passes.
func validCgroup(p, nonce string) bool {
	n, ok := CgroupNonce(p)
	return ok && n == nonce && len(p) <= maxCgroupPath && path.IsAbs(p) && path.Clean(p) == p
}

// ParseRecord decodes and validates one record.
func ParseRecord(data []byte) (*Record, error) {
	var r Record
	if err := DecodeStrict(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// Records is the directory of backend records inside a state dir.
type Records struct {
	dir string
}

// OpenRecords creates (if needed) and checks <stateDir>/records.
func OpenRecords(stateDir string) (*Records, error) {
	dir, err := ensureSubdir(stateDir, recordsDir)
	if err != nil {
		return nil, err
	}
	return &Records{dir: dir}, nil
}

// Dir returns the records directory.
func (rs *Records) Dir() string { return rs.dir }

func (rs *Records) path(nonce string) string { return filepath.Join(rs.dir, nonce+recordExt) }

// Write validates r and atomically writes it as <nonce>.json.
func (rs *Records) Write(r *Record) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("lockfile: refusing to write invalid record: %w", err)
	}
	return WriteJSON(rs.path(r.Nonce), r)
}

// Remove deletes the record of a backend that is verifiably gone. A record
// that is already missing is not an error.
func (rs *Records) Remove(nonce string) error {
	if err := ValidNonce(nonce); err != nil {
		return err
	}
	if err := os.Remove(rs.path(nonce)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("lockfile: remove record %s: %w", nonce, err)
	}
	return nil
}

// SetAside is a record file that could not be trusted and was moved aside.
type SetAside struct {
	File   string // the original file name
	Moved  string // where it is now ("" if it could not be moved)
	Reason error
}

// Load reads one record by nonce. A corrupt record is moved aside and
// reported as ErrCorrupt.
func (rs *Records) Load(nonce string) (*Record, error) {
	if err := ValidNonce(nonce); err != nil {
		return nil, err
	}
	r, aside := rs.load(nonce+recordExt, true)
	switch {
	case aside != nil:
		return nil, aside.Reason
	case r == nil:
		return nil, fmt.Errorf("lockfile: record %s: %w", nonce, fs.ErrNotExist)
	}
	return r, nil
}

// LoadAll reads every record. Files that fail validation are renamed to
// "<name>.corrupt" (never deleted) and returned in setAside, so callers can
// fail closed. Temp files from interrupted writes are ignored.
func (rs *Records) LoadAll() (records []*Record, setAside []SetAside, err error) {
	return rs.scan(true)
}

// Peek reads every record like LoadAll but leaves bad files where they are:
// for dry runs and status queries that must not change anything.
func (rs *Records) Peek() (records []*Record, bad []SetAside, err error) {
	return rs.scan(false)
}

func (rs *Records) scan(moveBad bool) (records []*Record, setAside []SetAside, err error) {
	entries, err := os.ReadDir(rs.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("lockfile: list records: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, recordExt) {
			continue
		}
		r, aside := rs.load(name, moveBad)
		switch {
		case aside != nil:
			setAside = append(setAside, *aside)
		case r != nil:
			records = append(records, r)
		}
	}
	sort.Slice(records, func(i, j int) bool { return records[i].Created.Before(records[j].Created) })
	return records, setAside, nil
}

func (rs *Records) load(name string, moveBad bool) (*Record, *SetAside) {
	path := filepath.Join(rs.dir, name)
	data, err := ReadLimited(path, MaxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // removed by its owner while we listed: not corrupt
	}
	var r *Record
	if err == nil {
		r, err = ParseRecord(data)
	}
	if err == nil && r.Nonce+recordExt != name {
		err = fmt.Errorf("%w: file %s holds nonce %s", ErrCorrupt, name, r.Nonce)
	}
	if err == nil {
		return r, nil
	}
	if !moveBad {
		return nil, &SetAside{File: name, Reason: err}
	}
	moved, merr := MoveAside(path)
	if merr != nil {
		err = fmt.Errorf("%w (and could not move it aside: %v)", err, merr)
	}
	return nil, &SetAside{File: name, Moved: moved, Reason: err}
}

// MoveAside renames path to path.corrupt (or .corrupt.N when taken), never
// deleting anything. It renames the directory entry itself, so a symlink is
// moved, not followed.
func MoveAside(path string) (string, error) {
	for i := 0; i < 1000; i++ {
		dst := path + corruptExt
		if i > 0 {
			dst = fmt.Sprintf("%s%s.%d", path, corruptExt, i)
		}
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if err := os.Rename(path, dst); err != nil {
			return "", fmt.Errorf("lockfile: move %s aside: %w", path, err)
		}
		return dst, nil
	}
	return "", fmt.Errorf("lockfile: move %s aside: too many .corrupt files", path)
}
