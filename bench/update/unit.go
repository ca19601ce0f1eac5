//go:build linux

package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hermes-desktop/backend/update/unit"
)

// layUnit lays out version's unit as sys's installer installs it: the
// binary, cores/ with one core (the binary gzip'd, as big as a real core
// is gzip'd, within a few MiB) and its VERSION and SHA256SUMS, a license.
func layUnit(dir string, sys system, bin, version string) string {
	root := filepath.Join(dir, "unit-"+sys.key+"-"+version)
	check(os.MkdirAll(filepath.Join(root, unit.CoresDir), 0o755))
	data, err := os.ReadFile(bin)
	check(err)
	check(os.WriteFile(filepath.Join(root, sys.exe), data, 0o755))
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, err = zw.Write(data)
	check(err)
	check(zw.Close())
	files := map[string][]byte{
		"hermes-desktop-core-linux-amd64.gz": gz.Bytes(),
		"SHA256SUMS":                         []byte(strings.Repeat("0", 64) + "  hermes-desktop-core-linux-amd64\n"),
		"VERSION":                            []byte(version + "\n"),
	}
	for name, body := range files {
		check(os.WriteFile(filepath.Join(root, unit.CoresDir, name), body, 0o644))
	}
	check(os.WriteFile(filepath.Join(root, sys.license), []byte("MIT"), 0o644))
	return root
}

// packed is a unit artifact and the unit it unpacks to.
type packed struct {
	data []byte
	unit unit.Sum
}

// pack is the unit artifact of the unit in root, as `release pack` makes
// it (unit.Compress).
func pack(root string) packed {
	var buf bytes.Buffer
	sum, err := unit.Compress(&buf, root)
	check(err)
	return packed{data: buf.Bytes(), unit: sum}
}

// unitTar is the canonical tar of the unit in root (unit.WriteTar): what
// the artifact unpacks to, and what the client reads from an install of
// it for a patch.
func unitTar(root string) []byte {
	var b bytes.Buffer
	check(unit.WriteTar(&b, root))
	return b.Bytes()
}

// measureArtifact packs the unit in root, five times, unpacks it five
// times, and prints the sizes beside the bare executable's and the times.
func measureArtifact(dir, root string) packed {
	const runs = 5
	exe, err := os.Stat(filepath.Join(root, unit.ExeUnix))
	check(err)
	var p packed
	var packs, unpacks []time.Duration
	for i := 0; i < runs; i++ {
		var buf bytes.Buffer
		t0 := time.Now()
		p.unit, err = unit.Compress(&buf, root)
		check(err)
		packs = append(packs, time.Since(t0))
		p.data = buf.Bytes()
	}
	art := filepath.Join(dir, "artifact")
	check(os.WriteFile(art, p.data, 0o600))
	for i := 0; i < runs; i++ {
		out := filepath.Join(dir, "unit.tar")
		t0 := time.Now()
		check(unit.Unpack(art, out, p.unit))
		unpacks = append(unpacks, time.Since(t0))
		os.Remove(out)
	}
	slices.Sort(packs)
	slices.Sort(unpacks)
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	fmt.Printf("the update artifact (%d runs each)\n\n", runs)
	fmt.Printf("%-56s %12s\n", "what", "size")
	fmt.Printf("%-56s %12s\n", "the bare executable (the artifact before units)", mib(exe.Size()))
	fmt.Printf("%-56s %12s\n", "the unit: executable + cores/ (one core) + license, tar", mib(p.unit.Size))
	fmt.Printf("%-56s %12s\n", "the unit artifact (.unit.tar.zst): what is downloaded", mib(int64(len(p.data))))
	fmt.Printf("%-56s %12s\n", "pack (release pack: tar + zstd best), p50", ms(packs[runs/2]))
	fmt.Printf("%-56s %12s\n\n", "unpack + verify unit_sha256 (client), p50", ms(unpacks[runs/2]))
	return p
}
