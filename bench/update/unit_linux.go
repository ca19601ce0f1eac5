//go:build linux

package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"hermes-desktop/backend/update/delta"
)

// The releases the delta measurements patch between: real rebuilds of
// this module in a copy of its tree, laid out as the portable archive's
// unit (the executable, cores/ with the four remote cores, LICENSE), each
// built as a release is (-trimpath, -s -w as Wails' production build).

// corePlatforms are the remote cores' (scripts/remote-cores.sh).
var corePlatforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}, {"darwin", "amd64"}}

// copyTree copies the module's source into dst: what a build needs.
func copyTree(src, dst string) {
	skip := map[string]bool{".git": true, "node_modules": true, ".tools": true, "build": true, "dist": true,
		"artifacts": true, "bin": true, "frontend": true, ".scratch": true}
	check(filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() && skip[d.Name()] && rel != "." {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
}

// goIn runs go with args in the tree src, with env added.
func goIn(src string, env []string, args ...string) {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = src, append(append(os.Environ(), "CGO_ENABLED=0"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		check(fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out))
	}
}

// edit replaces old by new in the tree's file, which must hold it once.
func edit(src, file, old, new string) {
	path := filepath.Join(src, file)
	data, err := os.ReadFile(path)
	check(err)
	if bytes.Count(data, []byte(old)) != 1 {
		check(fmt.Errorf("%s does not hold %q once: the bench's edit needs updating", file, old))
	}
	check(os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644))
}

// release is one release's unit, laid out in dir.
type release struct {
	dir, exe string
}

// buildRelease builds the tree at version into dir as a unit: the
// executable with key compiled in and, with cores, the four remote cores
// gzip'd by gz.
func buildRelease(src, dir, version, key string, cores bool) release {
	ldflags := fmt.Sprintf("-X main.version=%s -X main.updatePubKey=%s -s -w", version, key)
	r := release{dir: dir, exe: filepath.Join(dir, "hermes-desktop")}
	check(os.MkdirAll(filepath.Join(dir, "raw"), 0o755))
	goIn(src, nil, "build", "-trimpath", "-ldflags", ldflags, "-o", r.exe, ".")
	lic, err := os.ReadFile(filepath.Join(src, "LICENSE"))
	check(err)
	check(os.WriteFile(filepath.Join(dir, "LICENSE"), lic, 0o644))
	if !cores {
		return r
	}
	for _, p := range corePlatforms {
		goIn(src, []string{"GOOS=" + p[0], "GOARCH=" + p[1]}, "build", "-trimpath", "-ldflags", ldflags,
			"-o", filepath.Join(dir, "raw", "hermes-desktop-core-"+p[0]+"-"+p[1]), ".")
	}
	return r
}

// unitTar lays out the unit with its cores gzip'd by gz (ours:
// delta.Gzip, or GNU gzip's -9n, what the releases used before) and
// returns its tar: entries sorted, modes, owners and times fixed, as the
// canonical unit tar.
func (r release) unitTar(version string, gnu bool) []byte {
	var sums bytes.Buffer
	files := map[string][]byte{}
	for _, name := range []string{"hermes-desktop", "LICENSE"} {
		data, err := os.ReadFile(filepath.Join(r.dir, name))
		check(err)
		files[name] = data
	}
	raws, _ := os.ReadDir(filepath.Join(r.dir, "raw"))
	for _, e := range raws {
		raw, err := os.ReadFile(filepath.Join(r.dir, "raw", e.Name()))
		check(err)
		sum := sha256.Sum256(raw)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), e.Name())
		files["cores/"+e.Name()+".gz"] = gzipWith(raw, gnu)
	}
	if len(raws) > 0 {
		files["cores/SHA256SUMS"], files["cores/VERSION"] = sums.Bytes(), []byte(version+"\n")
	}
	return tarOf(files)
}

func gzipWith(raw []byte, gnu bool) []byte {
	var b bytes.Buffer
	if !gnu {
		check(delta.Gzip(&b, bytes.NewReader(raw)))
		return b.Bytes()
	}
	cmd := exec.Command("gzip", "-9n")
	cmd.Stdin, cmd.Stdout = bytes.NewReader(raw), &b
	check(cmd.Run())
	return b.Bytes()
}

func tarOf(files map[string][]byte) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	dirDone := false
	for _, n := range names {
		if strings.HasPrefix(n, "cores/") && !dirDone {
			check(tw.WriteHeader(&tar.Header{Name: "cores/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}))
			dirDone = true
		}
		mode := int64(0o644)
		if n == "hermes-desktop" {
			mode = 0o755
		}
		check(tw.WriteHeader(&tar.Header{Name: n, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(files[n])), ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}))
		_, err := tw.Write(files[n])
		check(err)
	}
	check(tw.Close())
	return b.Bytes()
}

// compressFull is the full artifact: the unit tar compressed with zstd at
// its best level (backend/update/unit's Compress).
func compressFull(unitTar []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	check(err)
	defer enc.Close()
	return enc.EncodeAll(unitTar, nil)
}
