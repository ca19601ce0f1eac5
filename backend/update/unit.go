package update

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"hermes-desktop/backend/update/unit"
)

// The update of a self-managed Linux archive or Windows install replaces
// its unit (backend/update/unit): the executable with the remote cores and
// the license files beside it, as one piece. The artifact is the unit's
// canonical tar compressed with zstd; the manifest names that tar by
// unit_sha256 and unit_size (Artifact), and the client checks it after
// unpacking it into <Dir>/<version>/UnitTarName, before staging.

// UnitTarName is the verified unit tar in <Dir>/<version>/: what Stage
// extracts.
const UnitTarName = "unit.tar"

// UnitArtifactSuffix ends the file name of a unit artifact.
const UnitArtifactSuffix = ".unit.tar.zst"

// UnitArtifactName is the artifact's file name for version on platform:
// hermes-desktop-1.1.0-linux-amd64-webkit41.unit.tar.zst.
func UnitArtifactName(version, platform string) string {
	return Product + "-" + version + "-" + platform + UnitArtifactSuffix
}

// Versions names the two sides of a Swap or a Restore: From the version
// in place, To the one put in place.
type Versions = unit.Versions

// IsUnit reports whether the artifact carries a unit (unit_sha256 set).
func (a Artifact) IsUnit() bool { return a.UnitSHA256 != "" }

// Unit is the unit tar the artifact unpacks to.
func (a Artifact) Unit() unit.Sum { return unit.Sum{SHA256: a.UnitSHA256, Size: a.UnitSize} }

// validateUnit checks unit_sha256 and unit_size: both or neither.
func (a Artifact) validateUnit() error {
	switch {
	case a.UnitSHA256 == "" && a.UnitSize == 0:
		return nil
	case !sha256Pattern.MatchString(a.UnitSHA256):
		return fmt.Errorf("unit_sha256 %q is not 64 lowercase hex digits", a.UnitSHA256)
	case a.UnitSize <= 0 || a.UnitSize > unit.MaxSize:
		return fmt.Errorf("unit_size %d is not between 1 and %d", a.UnitSize, int64(unit.MaxSize))
	}
	return nil
}

// unitError gives an error of the unit package the kind the callers
// branch on: a unit that is not what the manifest names is a checksum
// mismatch, one not in the canonical form a bad feed.
func unitError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unit.ErrDigest):
		return fmt.Errorf("%w: %w", ErrChecksum, err)
	case errors.Is(err, unit.ErrFormat):
		return fmt.Errorf("%w: %w", ErrFeed, err)
	}
	return classifyWrite(err)
}

// unpackUnit turns a verified unit artifact into its verified unit tar,
// beside it, and removes the artifact (the tar is what is kept); another
// artifact is returned as it is. A unit that does not match the manifest
// removes both: the next try downloads again.
func unpackUnit(artifact string, a Artifact) (string, error) {
	if !a.IsUnit() {
		return artifact, nil
	}
	tar := filepath.Join(filepath.Dir(artifact), UnitTarName)
	if err := unit.Unpack(artifact, tar, a.Unit()); err != nil {
		os.Remove(artifact) // verified, but its unit is not the manifest's
		return "", fmt.Errorf("update: unpack the artifact: %w", unitError(err))
	}
	os.Remove(artifact) // the unit tar holds all of it
	return tar, nil
}
