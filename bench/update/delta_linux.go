//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"aead.dev/minisign"

	"hermes-desktop/backend/update/delta"
)

// pair is two releases an update goes between.
type pair struct {
	name     string
	old, new release
}

// deltaReleases builds the releases the patches are measured on, from
// copies of this tree: 1.0.0 as it is; 1.1.0 with one line changed (a
// condition added in backend/update/download.go's partSize: code, so the
// functions after it move); and 0.9.0 against github.com/klauspost/compress
// v1.20.3, the release before this tree's v1.20.4 (a real dependency bump,
// 0.9.0 -> 1.0.0; golang.org/x/sys v0.49.0 -> v0.50.0 was tried first and
// changed no byte of the build).
func deltaReleases(dir, key string, cores bool) (oneLine, depBump pair) {
	root, err := os.Getwd()
	check(err)
	src, depSrc := filepath.Join(dir, "src"), filepath.Join(dir, "src-dep")
	copyTree(root, src)
	copyTree(root, depSrc)
	goIn(depSrc, nil, "get", "github.com/klauspost/compress@v1.20.3")
	dep := buildRelease(depSrc, filepath.Join(dir, "r-0.9.0"), "0.9.0", key, cores)
	base := buildRelease(src, filepath.Join(dir, "r-1.0.0"), "1.0.0", key, cores)
	edit(src, "backend/update/download.go", "\tcase fi.Size() > size:\n", "\tcase fi.Size() > size || fi.Size() < 0:\n")
	next := buildRelease(src, filepath.Join(dir, "r-1.1.0"), "1.1.0", key, cores)
	return pair{"one-line change (1.0.0 -> 1.1.0)", base, next},
		pair{"dependency bump, compress v1.20.3 -> v1.20.4 (0.9.0 -> 1.0.0)", dep, base}
}

// benchDeltas builds the releases, measures their patches and compares
// n updates of the one-line change with the patch and without.
func benchDeltas(dir string, n int, key string, priv minisign.PrivateKey, cores bool) {
	oneLine, depBump := deltaReleases(dir, key, cores)
	patch := measureDeltas([]pair{oneLine, depBump}, cores)
	arts := map[string]packed{linuxSystem.platform: pack(oneLine.new.unit)}
	withPatch := newFeed(dir, priv, arts, &patch)
	defer withPatch.close()
	full := newFeed(dir, priv, arts, nil)
	defer full.close()
	compareUpdates(dir, n, oneLine.old.unit, withPatch, full)
}

// patchRow is one measured patch.
type patchRow struct {
	name               string
	unit, full         int
	patch              feedPatch
	make, apply        time.Duration
	applied, viewsUsed bool
}

// measurePatch makes the patch between the unit tars of two unit
// directories as the release tool does (delta.Make, views) or without
// views (delta.MakePatch alone), and applies it as the client does; full
// is the new unit's artifact (unit.Compress).
func measurePatch(name, oldRoot, newRoot string, views bool) patchRow {
	old, new := unitTar(oldRoot), unitTar(newRoot)
	r := patchRow{name: name, unit: len(new), full: len(pack(newRoot).data), viewsUsed: views}
	t0 := time.Now()
	var p []byte
	var err error
	if views {
		p, err = delta.Make(old, new)
	} else {
		p, err = delta.MakePatch(old, new)
	}
	check(err)
	r.make, r.patch = time.Since(t0), feedPatch{from: delta.Digest(old), data: p}
	h := sha256.New()
	t0 = time.Now()
	if views {
		err = delta.Apply(h, old, p, int64(len(new)))
	} else {
		var out []byte
		out, err = delta.ApplyPatch(old, p, int64(len(new)))
		h.Write(out)
	}
	r.apply = time.Since(t0)
	check(err)
	want := sha256.Sum256(new)
	r.applied = bytes.Equal(h.Sum(nil), want[:])
	return r
}

// measureDeltas prints the bytes an update downloads, full against patch,
// for each pair, and for the one-line change also without views and with
// the cores gzip'd by GNU gzip as before; it returns the one-line
// change's patch, as the release tool would publish it. It fails when that
// patch is over a quarter of the full artifact.
func measureDeltas(pairs []pair, cores bool) feedPatch {
	fmt.Printf("\nupdate patches (backend/update/delta) between real rebuilds of this tree, each release a unit:\n")
	what := "the executable and LICENSE"
	if cores {
		what = "the executable, the four remote cores (cores/*.gz, SHA256SUMS, VERSION) and LICENSE"
	}
	fmt.Printf("%s;\nfull = the unit artifact (.unit.tar.zst), patch = between the unit tars (what the client rebuilds)\n\n", what)
	var rows []patchRow
	for i, p := range pairs {
		rows = append(rows, measurePatch(p.name, p.old.unit, p.new.unit, true))
		if i == 0 {
			rows = append(rows, measurePatch("  the same, no views (zstd --patch-from alone)", p.old.unit, p.new.unit, false))
			if cores {
				rows = append(rows, measurePatch("  the same, cores gzip'd by GNU gzip -9n (before)", p.old.gnuUnit(), p.new.gnuUnit(), true))
			}
		}
	}
	fmt.Printf("%-64s %10s %10s %10s %7s %8s %8s %s\n", "pair", "unit tar", "full", "patch", "ratio", "make", "apply", "rebuilt")
	for _, r := range rows {
		fmt.Printf("%-64s %10s %10s %10s %6.1f%% %7.1fs %7.1fs %v\n", r.name, mibs(r.unit), mibs(r.full), mibs(len(r.patch.data)),
			100*float64(len(r.patch.data))/float64(r.full), r.make.Seconds(), r.apply.Seconds(), r.applied)
	}
	if one := rows[0]; 4*len(one.patch.data) > one.full || !one.applied {
		check(fmt.Errorf("the one-line change's patch is %d bytes, over a quarter of the full %d (or did not rebuild it)", len(one.patch.data), one.full))
	}
	fmt.Println()
	return rows[0].patch
}

func mibs(n int) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }

// updateRuns is the end-to-end updates of one feed.
type updateRuns struct {
	name         string
	total        []time.Duration
	served       []int64
	failed, prob int64
	kept         bool
}

// compareUpdates runs n updates from the unit in old through `update
// apply` from a feed that lists a patch from its unit tar and from one
// that does not, alternating, and prints them side by side: bytes downloaded,
// time from the check to the new version serving, failed probes.
func compareUpdates(dir string, n int, old string, withPatch, full *feedServer) {
	runs := []*updateRuns{{name: "full download", kept: true}, {name: "patch", kept: true}}
	for i := 0; i < 2*n; i++ {
		f, r := full, runs[0]
		if i%2 == 1 {
			f, r = withPatch, runs[1]
		}
		before := f.served.Load()
		res := runUpdate(dir, 1000+i, linuxSystem, old, f.url+"/feed/stable.json")
		r.total, r.served = append(r.total, res.total), append(r.served, f.served.Load()-before)
		r.failed, r.prob, r.kept = r.failed+res.failed, r.prob+res.probes, r.kept && res.kept
	}
	fmt.Printf("self-update 1.0.0 -> 1.1.0 (the one-line change, units) through `update apply`, %d of each, alternating\n\n", n)
	fmt.Printf("%-16s %14s %12s %12s %16s %s\n", "feed", "downloaded", "p50", "max", "failed probes", "PID kept")
	for _, r := range runs {
		slices.Sort(r.total)
		slices.Sort(r.served)
		fmt.Printf("%-16s %14s %12s %12s %9d of %-5d %v\n", r.name, mibs(int(r.served[len(r.served)/2])),
			ms(r.total[len(r.total)/2]), ms(r.total[len(r.total)-1]), r.failed, r.prob, r.kept)
	}
	fmt.Println()
}
