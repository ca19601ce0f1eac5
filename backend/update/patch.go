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
// the installed executable (Config.Installed), when there is one
// (backend/update/delta).

// PatchName is the downloaded patch's name in <Dir>/<version>/ (".part"
// while downloading); it is removed once used.
const PatchName = "patch"

// choosePatch is a's patch from the installed executable when one is
// smaller than the full artifact; nil when none is (a changed install,
// one older than the patches reach) or the executable cannot be read
// (logged: the full download still works).
func (c *Client) choosePatch(a Artifact) *Patch {
	if len(a.Patches) == 0 || c.installed == nil {
		return nil
	}
	sum, err := c.installed.Digest()
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

// downloadPatch rebuilds rel's artifact from its patch and returns where
// it is, as Download does from the full artifact.
func (c *Client) downloadPatch(ctx context.Context, dir string, rel *Release, progress func(Progress)) (string, error) {
	p := rel.Patch
	m := transfer.NewMeter(p.Size, progress)
	file, out := filepath.Join(dir, PatchName), filepath.Join(dir, ArtifactName)
	if err := c.fetchFile(ctx, Artifact{URL: p.URL, SHA256: p.SHA256, Size: p.Size}, file, m); err != nil {
		return "", err
	}
	defer os.Remove(file) // used: it rebuilt the release, or it cannot
	sum, err := c.installed.Digest()
	if err != nil {
		return "", err
	}
	if sum != p.From {
		return "", fmt.Errorf("update: the installed executable changed since the check (%s, the patch is from %s)", sum, p.From)
	}
	err = delta.ApplyFile(out, c.cfg.Installed, file, delta.Sum{SHA256: rel.Artifact.SHA256, Size: rel.Artifact.Size})
	if errors.Is(err, delta.ErrPatch) || errors.Is(err, delta.ErrTooBig) || errors.Is(err, delta.ErrMismatch) {
		err = fmt.Errorf("%w: the patch: %w", ErrChecksum, err)
	}
	if err != nil {
		return "", err
	}
	m.Finish(p.Size)
	return out, nil
}
