package update

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"hermes-desktop/backend/update/delta"
)

// Patches (backend/update/delta): an artifact may list patches from
// earlier releases (Artifact.Patches, signed with the manifest). When one
// starts from the installed unit (Config.Installed), Download fetches it
// instead, applies it and checks the result against the manifest's digest
// (patchTarget); on any failure it downloads the full artifact.

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

// InstalledUnit returns what Config.Installed wants for the install of
// exe: its executable (symlinks resolved), the unit of an install that is
// that one file.
func InstalledUnit(exe string) func(io.Writer) error {
	return func(w io.Writer) error {
		f, err := os.Open(exe)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
}

// pickPatch is a's patch from the installed unit, or nil: no patches, no
// Installed, or a unit none starts from (changed by hand, or too old).
func (c *Client) pickPatch(a Artifact) *Patch {
	if len(a.Patches) == 0 || c.cfg.Installed == nil {
		return nil
	}
	_, sum, err := delta.Read(c.cfg.Installed)
	if err != nil {
		c.cfg.Logger.Warn("update: no patch: the installed unit cannot be read", "err", err)
		return nil
	}
	return delta.Pick(a.Patches, sum.SHA256, a.Size)
}

// downloadPatch fetches rel's patch (resumed and checked as the artifact
// is), applies it to the installed unit, checks the result and returns
// where it is, as Download does for the full artifact.
func (c *Client) downloadPatch(ctx context.Context, dir string, rel *Release, progress func(Progress)) (string, error) {
	p := rel.Patch
	file, m := filepath.Join(dir, PatchName), newMeter(p.Size, progress)
	if err := c.fetchFile(ctx, Artifact{URL: p.URL, SHA256: p.SHA256, Size: p.Size}, file, m); err != nil {
		return "", err
	}
	defer os.Remove(file) // used once: it rebuilt the release, or it cannot
	patch, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	old, sum, err := delta.Read(c.cfg.Installed)
	if err != nil {
		return "", fmt.Errorf("update: read the installed unit: %w", err)
	}
	if sum.SHA256 != p.From {
		return "", fmt.Errorf("update: the installed unit changed since the check (%s, the patch is from %s)", sum.SHA256, p.From)
	}
	want, name := patchTarget(rel.Artifact)
	out := filepath.Join(dir, name)
	if err := delta.ApplyFile(out, old, patch, want); err != nil {
		return "", fmt.Errorf("%w: the patch: %w", ErrChecksum, err)
	}
	m.finish(p.Size)
	return out, nil
}
