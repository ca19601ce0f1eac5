package update

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The install-type marker, written next to the binary by the self-managed
// installs (packaging/linux/install.sh, packaging/windows/installer.nsi).
// No marker means: not ours to replace.
const (
	MarkerFile   = "install-type"
	TypePortable = "portable"  // the Linux archive's install.sh, in ~/.local/lib
	TypeNSISUser = "nsis-user" // the Windows per-user installer
)

// Install describes how the running copy was installed.
type Install struct {
	// Exe is the executable with symlinks resolved.
	Exe string
	// Target is what a swap replaces: Exe, or its macOS .app bundle.
	Target Target
	// Type is the marker's content ("" without a marker).
	Type string
	// Manager names the package manager that owns Exe ("dpkg"); "" when
	// none is known to.
	Manager string
}

// Target is what an update replaces.
type Target struct {
	Path string `json:"path"`
	// Bundle: Path is a macOS .app directory, swapped whole.
	Bundle bool `json:"bundle,omitempty"`
	// Unit: Path is the executable of a self-managed Linux archive or
	// Windows install, replaced together with the rest of its unit (the
	// cores and license files beside it; backend/update/unit).
	Unit bool `json:"unit,omitempty"`
}

// Dir is the directory the target is in: where an update stages, and
// where a unit's entries are.
func (t Target) Dir() string { return filepath.Dir(t.Path) }

// Inspect reads how exe was installed: its marker, and whether a package
// manager owns it.
func Inspect(exe string) (Install, error) {
	resolved, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return Install{}, fmt.Errorf("update: resolve %s: %w", exe, err)
	}
	in := Install{Exe: resolved, Target: Target{Path: resolved}}
	if b := bundleOf(resolved); b != "" {
		in.Target = Target{Path: b, Bundle: true}
	}
	in.Type, err = readMarker(filepath.Join(filepath.Dir(resolved), MarkerFile))
	if err != nil {
		return in, err
	}
	in.Manager = packageOwner(resolved)
	in.Target.Unit = !in.Target.Bundle && in.SelfManaged()
	return in, nil
}

// readMarker reads the marker: a small regular file (never a symlink).
func readMarker(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > 64 {
		return "", nil // not a marker an installer wrote
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// SelfManaged reports whether this copy may replace itself: a marker of a
// self-managed install and no package manager claiming the file.
func (i Install) SelfManaged() bool {
	return (i.Type == TypePortable || i.Type == TypeNSISUser) && i.Manager == ""
}

// Why says, in words, why a copy that is not self-managed is left alone.
func (i Install) Why() string {
	switch {
	case i.Manager != "":
		return fmt.Sprintf("%s is managed by %s", i.Exe, i.Manager)
	case i.Type == "":
		return fmt.Sprintf("%s has no %s marker: it was not installed by a self-updating installer", i.Exe, MarkerFile)
	case !i.SelfManaged():
		return fmt.Sprintf("%s's %s is %q, not %s or %s", i.Exe, MarkerFile, i.Type, TypePortable, TypeNSISUser)
	}
	return ""
}

// UpdateCommand is what updates a package-managed copy to version. The
// command is for a person to paste into a shell: the version in it is
// rebuilt from its checked parts, and one that does not parse is left out.
func (i Install) UpdateCommand(version string) string {
	flavour := Flavour
	if flavour == "" {
		flavour = FlavourWebKit41 // every .deb is a desktop build; 4.1 is the current releases'
	}
	v, err := ParseVersion(version)
	if err != nil {
		return "the package manager or installer you used"
	}
	deb := fmt.Sprintf("sudo apt install ./hermes-desktop_%s_%s_amd64.deb", v, flavour)
	if i.Manager == "dpkg" {
		return deb
	}
	return "the package manager or installer you used (for the .deb: " + deb + ")"
}
