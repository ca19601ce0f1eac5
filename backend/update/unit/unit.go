// Package unit is what a self-update of the portable archive (Linux,
// install type "portable") or the Windows install ("nsis-user") replaces,
// as one piece: the executable, the remote cores beside it (cores/, all of
// it) and the license files the installers put there. The install-type
// marker, the uninstaller, install.sh and its list of installed files, and
// the user's data are not part of it: an update never touches them.
//
// A unit travels as its canonical tar (WriteTar): the same files give the
// same bytes wherever the tar is made, on the release machine from the
// build output or on a user's machine from the installed copy, so that its
// SHA-256 (Digest) names a unit. The full update artifact is that tar
// compressed with zstd (Compress); the client unpacks it (Unpack), bounded
// by the size the signed manifest gives, and checks the digest before it
// extracts anything (Extract, through an os.Root of the staging
// directory).
//
// In an install, a unit is replaced entry by entry under a journal
// (swap.go): a crash at any point leaves what the next start puts back
// whole, the old unit or the new one (Recover).
package unit

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// The executable's names: one of them is in every unit, never both.
const (
	ExeUnix    = "hermes-desktop"     // the Linux archive's
	ExeWindows = "hermes-desktop.exe" // the Windows installer's
)

// CoresDir holds the remote cores (backend/remotecore): the one directory
// of a unit, taken whole.
const CoresDir = "cores"

// names are the top-level entries a unit may hold, sorted: the executable,
// the cores and the license files of both installers (packaging/linux/install.sh
// writes LICENSE and THIRD_PARTY_LICENSES, packaging/windows/installer.nsi
// the same with .txt). An install holds its own OS's; what it lacks is
// simply not in its unit.
var names = []string{
	"LICENSE", "LICENSE.txt", "THIRD_PARTY_LICENSES", "THIRD_PARTY_LICENSES.txt",
	CoresDir, ExeUnix, ExeWindows,
}

// Names are the top-level entries a unit may hold, sorted.
func Names() []string { return slices.Clone(names) }

// IsName reports whether name is a top-level entry a unit may hold.
func IsName(name string) bool { return slices.Contains(names, name) }

// IsExe reports whether name is one of the executable's names.
func IsExe(name string) bool { return name == ExeUnix || name == ExeWindows }

// MaxSize bounds a unit tar: what is written, read or unpacked never goes
// past it.
const MaxSize = 2 << 30

// maxDepth bounds how deep an entry may be (cores/ holds files only
// today; a little room for what may come).
const maxDepth = 4

// Errors. Each is wrapped with the entry or file it is about.
var (
	// ErrFormat: a tar that is not a canonical unit tar, or a directory
	// that cannot be one (a link, a special file, a name out of the rules).
	ErrFormat = errors.New("unit: not a canonical unit")
	// ErrDigest: a unit whose SHA-256 or length is not the one expected.
	ErrDigest = errors.New("unit: digest mismatch")
	// ErrBusy: another live process is replacing the unit of this install.
	ErrBusy = errors.New("unit: another process is updating this install")
)

// elementPattern is what every element of an entry's path must match: no
// leading dot (so no "." or ".."), no separator of any OS, no drive colon.
var elementPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}$`)

// checkPath checks a slash path of an entry (without the trailing slash a
// directory's tar name has) and whether it may be a directory: the top
// element a unit name, only cores/ a directory with entries under it.
func checkPath(rel string, dir bool) error {
	parts := strings.Split(rel, "/")
	if len(parts) > maxDepth {
		return fmt.Errorf("%w: %q is over %d levels deep", ErrFormat, rel, maxDepth)
	}
	for _, p := range parts {
		if !elementPattern.MatchString(p) {
			return fmt.Errorf("%w: %q: %q is not a plain file name", ErrFormat, rel, p)
		}
	}
	top := parts[0]
	switch {
	case !IsName(top):
		return fmt.Errorf("%w: %q is not part of a unit (%s)", ErrFormat, rel, strings.Join(names, ", "))
	case top == CoresDir && len(parts) == 1 && !dir:
		return fmt.Errorf("%w: %s is not a directory", ErrFormat, CoresDir)
	case top != CoresDir && (len(parts) > 1 || dir):
		return fmt.Errorf("%w: %s is a directory; it must be a file", ErrFormat, top)
	}
	return nil
}

// mode is an entry's canonical mode: 0755 for the executable and the
// directories, 0644 for the rest. It depends on the path alone, never on
// the file system (Windows has no executable bit).
func mode(rel string, dir bool) int64 {
	if dir || IsExe(rel) {
		return 0o755
	}
	return 0o644
}

// parentOf is the directory holding rel ("" at the top).
func parentOf(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}
