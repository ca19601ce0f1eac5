package update

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"hermes-desktop/backend/update/delta"
	"hermes-desktop/backend/update/transfer"
)

// Patches: Download rebuilds the release from the artifact's patch from
// what is installed (Config.Installed), when there is one
// (backend/update/delta): a unit artifact's unit tar from the unit of the
// install's directory, another artifact from the executable.

// PatchName is the downloaded patch's name in <Dir>/<version>/ (".part"
// while downloading); it is removed once used.
const PatchName = "patch"

// base is what a's patches start from; nil without Config.Installed.
func (c *Client) base(a Artifact) *delta.Reference {
	if a.IsUnit() {
		return c.installedUnit
	}
	return c.installed
}

// choosePatch is a's patch from what is installed when one is smaller
// than the full artifact; nil when none is (a changed install, one older
// than the patches reach) or the install cannot be read (logged: the full
// download still works).
func (c *Client) choosePatch(a Artifact) *Patch {
	base := c.base(a)
	if len(a.Patches) == 0 || base == nil {
		return nil
	}
	sum, err := base.Digest()
	if err != nil {
		c.cfg.Logger.Warn("update: no patch", "err", err)
		return nil
	}
	for _, p := range a.Patches {
		if p.From == sum && p.Size < a.Size {
			return &p
		}
	}
	return nil
}

// downloadPatch rebuilds rel's release from its patch and returns where it
// is, as Download does from the full artifact: the unit tar of a unit
// artifact, the artifact file of another.
func (c *Client) downloadPatch(ctx context.Context, dir string, rel *Release, progress func(Progress)) (string, error) {
	p := rel.Patch
	m := transfer.NewMeter(p.Size, progress)
	file := filepath.Join(dir, PatchName)
	if err := c.fetchFile(ctx, Artifact{URL: p.URL, SHA256: p.SHA256, Size: p.Size}, file, m); err != nil {
		return "", err
	}
	defer os.Remove(file) // used: it rebuilt the release, or it cannot
	// All of it is here: say so before the seconds that rebuilding a unit
	// can take, or the bar stays where its last report left it.
	m.Finish(p.Size)
	old, err := c.base(rel.Artifact).Read()
	if err != nil {
		return "", err
	}
	if sum := delta.Digest(old); sum != p.From {
		return "", fmt.Errorf("update: the install changed since the check (%s, the patch is from %s)", sum, p.From)
	}
	out, want := filepath.Join(dir, ArtifactName), delta.Sum{SHA256: rel.Artifact.SHA256, Size: rel.Artifact.Size}
	if rel.Artifact.IsUnit() {
		out, want = filepath.Join(dir, UnitTarName), delta.Sum(rel.Artifact.Unit())
	}
	err = delta.ApplyFile(out, old, file, want)
	if errors.Is(err, delta.ErrPatch) || errors.Is(err, delta.ErrTooBig) || errors.Is(err, delta.ErrMismatch) {
		err = fmt.Errorf("%w: the patch: %w", ErrChecksum, err)
	}
	if err != nil {
		return "", err
	}
	return out, nil
}
