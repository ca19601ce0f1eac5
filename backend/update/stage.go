package update

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hermes-desktop/backend/update/bundle"
	"hermes-desktop/backend/update/unit"
)

// stagedPattern names a staged update next to its target: a hidden
// temporary name in the same directory, so the swap is a rename on one
// filesystem.
func stagedPattern(t Target) string { return stagedPrefix(t) + "*" }

func stagedPrefix(t Target) string { return "." + filepath.Base(t.Path) + ".update-" }

// Stage puts rel's verified download (artifact: the unit tar, or a
// macOS bundle archive) next to in.Target under a temporary name and
// smoke-tests it: its executable must answer `version --json` with rel's
// version and, for a unit, `remote-cores --json` with the same version for
// the cores staged with it, before anything changes. It returns the staged
// path (a directory); on error nothing is left behind.
func Stage(ctx context.Context, artifact string, in Install, rel *Release) (string, error) {
	removeLeftovers(in.Target)
	var staged, exe string
	var err error
	switch {
	case in.Target.Bundle:
		staged, exe, err = stageBundle(artifact, in)
	case in.Target.Unit:
		staged, exe, err = stageUnit(artifact, in, rel.Artifact)
	default:
		return "", fmt.Errorf("%w: %s is not a self-managed install", ErrManaged, in.Exe)
	}
	if err == nil {
		err = Smoke(ctx, exe, rel.Version)
	}
	if err == nil && in.Target.Unit {
		err = SmokeCores(ctx, exe, rel.Version)
	}
	if err != nil {
		if staged != "" {
			os.RemoveAll(staged) // our own temporary copy
		}
		return "", err
	}
	return staged, nil
}

// stageBundle unpacks a macOS bundle archive into a new directory beside
// the bundle.
func stageBundle(archive string, in Install) (staged, exe string, err error) {
	rel, err := filepath.Rel(in.Target.Path, in.Exe)
	if err != nil {
		return "", "", fmt.Errorf("update: %w", err)
	}
	if staged, err = os.MkdirTemp(in.Target.Dir(), stagedPattern(in.Target)); err != nil {
		return "", "", fmt.Errorf("update: stage in %s: %w", in.Target.Dir(), classifyWrite(err))
	}
	err = bundle.Extract(archive, staged)
	if errors.Is(err, bundle.ErrFormat) {
		err = fmt.Errorf("%w: %w", ErrFeed, err)
	} else if err != nil {
		err = fmt.Errorf("update: %w", classifyWrite(err))
	}
	return staged, filepath.Join(staged, rel), err
}

// stageUnit extracts the unit tar into a new directory beside the
// executable, through an os.Root of it, checking on the way that it is
// the unit the manifest names and that it holds this install's executable
// (a Linux unit offered to a Windows install holds another).
func stageUnit(tar string, in Install, a Artifact) (staged, exe string, err error) {
	if !a.IsUnit() {
		return "", "", fmt.Errorf("%w: the feed's artifact is not a unit (no unit_sha256): this install updates its executable together with its cores", ErrFeed)
	}
	if staged, err = os.MkdirTemp(in.Target.Dir(), stagedPattern(in.Target)); err != nil {
		return "", "", fmt.Errorf("update: stage in %s: %w", in.Target.Dir(), classifyWrite(err))
	}
	f, err := os.Open(tar)
	if err != nil {
		return staged, "", fmt.Errorf("update: %w", err)
	}
	defer f.Close()
	got, err := unit.Extract(f, staged)
	if err == nil && got != a.Unit() {
		err = fmt.Errorf("%w: %s is %s, the manifest says %s", unit.ErrDigest, tar, got, a.Unit())
	}
	if err != nil {
		return staged, "", fmt.Errorf("update: stage the unit: %w", unitError(err))
	}
	exe = filepath.Join(staged, filepath.Base(in.Exe))
	if _, err := os.Lstat(exe); err != nil {
		return staged, "", fmt.Errorf("%w: the unit holds no %s: it is another OS's", ErrSmoke, filepath.Base(in.Exe))
	}
	return staged, exe, nil
}

// removeLeftovers removes the staged copies an interrupted update left, and
// the versions earlier swaps and restores moved aside while they still ran
// (leftoverPrefixes). One that still runs stays until the next time: on
// Windows the removal fails while it runs, which is harmless.
func removeLeftovers(t Target) {
	dir := t.Dir()
	entries, _ := os.ReadDir(dir)
	prefixes := append([]string{stagedPrefix(t)}, leftoverPrefixes(t)...)
	for _, e := range entries {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(e.Name(), p) }) {
			os.RemoveAll(filepath.Join(dir, e.Name())) // only names our own swaps make
		}
	}
}
