package update

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"hermes-desktop/backend/update/delta"
	"hermes-desktop/backend/update/transfer"
)

// Patches: Download rebuilds the release from the artifact's patch from
// the installed unit, when there is one (backend/update/delta).

// Patch is a patch from an earlier release (delta.Patch).
type Patch = delta.Patch

// PatchName is the downloaded patch's name in <Dir>/<version>/ (".part"
// while downloading); it is removed once used.
const PatchName = "patch"

// patchTarget is what a patch of a rebuilds, and its name in the
// version's directory: the artifact itself, for an install that is its
// executable alone.
func patchTarget(a Artifact) (delta.Sum, string) {
	return delta.Sum{SHA256: a.SHA256, Size: a.Size}, ArtifactName
}

// InstalledUnit is Config.Installed for the install of exe: its
// executable, the unit of an install that is that one file.
func InstalledUnit(exe string) func(io.Writer) error { return delta.FileSource(exe) }

// downloadPatch rebuilds rel's artifact from its patch and returns where
// it is, as Download does from the full artifact.
func (c *Client) downloadPatch(ctx context.Context, dir string, rel *Release, progress func(Progress)) (string, error) {
	m := transfer.NewMeter(rel.Patch.Size, progress)
	fetch := func(ctx context.Context, url, sha256 string, size int64, path string) error {
		return c.fetchFile(ctx, Artifact{URL: url, SHA256: sha256, Size: size}, path, m)
	}
	want, name := patchTarget(rel.Artifact)
	out := filepath.Join(dir, name)
	err := delta.Rebuild(ctx, fetch, *rel.Patch, filepath.Join(dir, PatchName), c.cfg.Installed, out, want)
	if errors.Is(err, delta.ErrPatch) || errors.Is(err, delta.ErrTooBig) || errors.Is(err, delta.ErrMismatch) {
		err = fmt.Errorf("%w: the patch: %w", ErrChecksum, err)
	}
	if err != nil {
		return "", err
	}
	m.Finish(rel.Patch.Size)
	return out, nil
}
