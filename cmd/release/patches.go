package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/delta"
	"hermes-desktop/backend/update/unit"
)

// The patches sign writes with -releases DIR (backend/update/delta): DIR
// keeps the unit artifacts of earlier releases as they were published,
// named hermes-desktop-VERSION-PLATFORM.unit.tar.zst. From the newest
// -patches of them older than -version, of the same platform (so of the
// same flavour), sign makes a patch from the earlier unit tar (what an
// install of that release holds, as the client reads it) to ARTIFACT's,
// writes it next to ARTIFACT as hermes-desktop-OLD-to-VERSION-PLATFORM.patch,
// and lists it in the manifest, published in the same directory as -url
// says ARTIFACT is. The macOS bundle, not a unit, gets no patches.

// earlier is one earlier release's artifact in the releases directory.
type earlier struct {
	version string // as the file name spells it
	parsed  update.Version
	path    string
}

// earlierReleases lists the newest n artifacts in dir for platform older
// than version, newest first.
func earlierReleases(dir, platform, version string, n int) ([]earlier, error) {
	target, err := update.ParseVersion(version)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("sign: the releases: %w", err)
	}
	var found []earlier
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), update.Product+"-")
		v, ok2 := strings.CutSuffix(rest, "-"+platform+update.UnitArtifactSuffix)
		if !ok || !ok2 || !e.Type().IsRegular() {
			continue
		}
		if pv, err := update.ParseVersion(v); err == nil && pv.Compare(target) < 0 {
			found = append(found, earlier{version: v, parsed: pv, path: filepath.Join(dir, e.Name())})
		}
	}
	slices.SortStableFunc(found, func(a, b earlier) int { return b.parsed.Compare(a.parsed) })
	return found[:min(n, len(found))], nil
}

// writePatches makes the patches from the earlier releases to the
// artifact, next to it, and returns them for the manifest. A patch no
// smaller than the full artifact is left out: no install would take it.
func writePatches(o signOptions, full update.Artifact, log io.Writer) ([]update.Patch, error) {
	if o.releases == "" || o.patches <= 0 {
		return nil, nil
	}
	if !full.IsUnit() {
		fmt.Fprintf(log, "no patches for %s: patches are made between unit artifacts\n", o.platform)
		return nil, nil
	}
	olds, err := earlierReleases(o.releases, o.platform, o.version, o.patches)
	if err != nil {
		return nil, err
	}
	to, err := unitTar(o.artifact)
	if err != nil {
		return nil, err
	}
	var out []update.Patch
	for _, old := range olds {
		from, err := unitTar(old.path)
		if err != nil {
			return nil, err
		}
		p, err := delta.Make(from, to)
		if err != nil {
			return nil, fmt.Errorf("sign: the patch from %s: %w", old.version, err)
		}
		if int64(len(p)) >= full.Size {
			fmt.Fprintf(log, "no patch from %s: %d bytes, the full artifact is %d\n", old.version, len(p), full.Size)
			continue
		}
		name := fmt.Sprintf("%s-%s-to-%s-%s.patch", update.Product, old.version, o.version, o.platform)
		if err := writeAtomic(filepath.Join(filepath.Dir(o.artifact), name), p); err != nil {
			return nil, err
		}
		out = append(out, update.Patch{From: delta.Digest(from), URL: siblingURL(o.url, name), SHA256: delta.Digest(p), Size: int64(len(p))})
		fmt.Fprintf(log, "patch from %s: %s (%d bytes, the full artifact %d: %s)\n",
			old.version, name, len(p), full.Size, percent(int64(len(p)), full.Size))
	}
	return out, nil
}

// percent is part of whole in words: "2.4%", or "0.038%" for a part too
// small for one decimal to show.
func percent(part, whole int64) string {
	p := 100 * float64(part) / float64(whole)
	if p < 1 {
		return fmt.Sprintf("%.2g%%", p)
	}
	return fmt.Sprintf("%.1f%%", p)
}

// unitTar is the unit tar a unit artifact holds, as an install of it
// holds it: extracted (which checks it) and written again canonically.
func unitTar(artifact string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "release-unit-")
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	defer os.RemoveAll(tmp)
	f, err := os.Open(artifact)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err = unit.ExtractArtifact(f, tmp); err == nil {
		err = unit.WriteTar(&b, tmp)
	}
	if err != nil {
		return nil, fmt.Errorf("sign: %s: %w", artifact, err)
	}
	return b.Bytes(), nil
}

// siblingURL is the URL of name in the directory of the artifact's URL
// (absolute, or relative to the manifest, as the artifact's): the patches
// are published next to it. A query is dropped: it was the artifact's.
func siblingURL(artifactURL, name string) string {
	u, _, _ := strings.Cut(artifactURL, "?")
	return u[:strings.LastIndex(u, "/")+1] + name
}

// cmdGzip writes IN gzip'd to OUT the way the patches expand (delta.Gzip):
// the release's gzip'd files (the remote cores, the core the Linux desktop
// build embeds) are made with it, so that a patch sees what changed in
// them rather than every compressed byte after the change.
func cmdGzip(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: release gzip IN OUT")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	var b bytes.Buffer
	if err := delta.Gzip(&b, bytes.NewReader(data)); err != nil {
		return err
	}
	return writeAtomic(args[1], b.Bytes())
}
