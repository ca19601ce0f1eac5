//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"hermes-desktop/backend/update/delta"
	"hermes-desktop/backend/update/unit"
)

// The releases the delta measurements patch between: real rebuilds of
// this module in a copy of its tree, laid out as the portable archive's
// unit (the executable, cores/ with the four remote cores, LICENSE), each
// built as a release is (-trimpath, -s -w as Wails' production build).

// corePlatforms are the remote cores' (scripts/remote-cores.sh).
var corePlatforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}, {"darwin", "amd64"}}

// copyTree copies the module's source into dst: what a build needs. No
// .git (a worktree's is a file): the copies' builds must not run git on
// the tree they were copied from.
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
		if !d.Type().IsRegular() || d.Name() == ".git" {
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

// release is one release built into dir: its unit laid out in dir/unit
// (the cores gzip'd by delta.Gzip, as scripts/remote-cores.sh does), the
// cores as built in dir/raw.
type release struct {
	dir, unit, version string
}

// buildRelease builds the tree at version into dir: the executable with
// key compiled in and, with cores, the four remote cores.
func buildRelease(src, dir, version, key string, cores bool) release {
	ldflags := fmt.Sprintf("-X main.version=%s -X main.updatePubKey=%s -s -w", version, key)
	r := release{dir: dir, unit: filepath.Join(dir, "unit"), version: version}
	check(os.MkdirAll(filepath.Join(dir, "raw"), 0o755))
	check(os.MkdirAll(r.unit, 0o755))
	goIn(src, nil, "build", "-trimpath", "-ldflags", ldflags, "-o", filepath.Join(r.unit, unit.ExeUnix), ".")
	lic, err := os.ReadFile(filepath.Join(src, "LICENSE"))
	check(err)
	check(os.WriteFile(filepath.Join(r.unit, "LICENSE"), lic, 0o644))
	if cores {
		for _, p := range corePlatforms {
			goIn(src, []string{"GOOS=" + p[0], "GOARCH=" + p[1]}, "build", "-trimpath", "-ldflags", ldflags,
				"-o", filepath.Join(dir, "raw", "hermes-desktop-core-"+p[0]+"-"+p[1]), ".")
		}
		r.layCores(r.unit, false)
	}
	return r
}

// gnuUnit lays out the release's unit again in dir/unit-gnu, with the
// cores gzip'd by GNU gzip -9n, what the releases used before, and
// returns it.
func (r release) gnuUnit() string {
	root := filepath.Join(r.dir, "unit-gnu")
	check(os.CopyFS(root, os.DirFS(r.unit)))
	r.layCores(root, true)
	return root
}

// layCores writes root's cores/: each raw core gzip'd (ours: delta.Gzip;
// gnu: GNU gzip -9n), the cores' SHA256SUMS and the VERSION.
func (r release) layCores(root string, gnu bool) {
	cores := filepath.Join(root, unit.CoresDir)
	check(os.MkdirAll(cores, 0o755))
	raws, err := os.ReadDir(filepath.Join(r.dir, "raw"))
	check(err)
	var sums bytes.Buffer
	for _, e := range raws {
		raw, err := os.ReadFile(filepath.Join(r.dir, "raw", e.Name()))
		check(err)
		sum := sha256.Sum256(raw)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), e.Name())
		check(os.WriteFile(filepath.Join(cores, e.Name()+".gz"), gzipWith(raw, gnu), 0o644))
	}
	check(os.WriteFile(filepath.Join(cores, "SHA256SUMS"), sums.Bytes(), 0o644))
	check(os.WriteFile(filepath.Join(cores, "VERSION"), []byte(r.version+"\n"), 0o644))
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
