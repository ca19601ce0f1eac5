// Package corebin gives the launcher a small executable for the processes
// it starts from its own code: the watchdog shim and the built-in backend.
//
// Why: the shipped desktop binary links GTK and WebKitGTK (168 shared
// libraries on Debian 12, built with BIND_NOW), so every exec of it
// resolves all their symbols before main: 81 ms of CPU and 56 MB RSS per
// shim, against 3 ms and 10 MB for the same code built without cgo
// (perf stat -r 20 ... version). Desktop builds for Linux therefore carry
// that plain build inside them (gzip'd, with its SHA-256), and Locate
// writes it once per version into the state directory and hands its path
// to the launcher. Any doubt (no core in this build, a file that is not
// ours or not what was shipped, a core that does not run or reports
// another version) falls back to the desktop binary itself: slower, never
// wrong.
package corebin

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// Payload file names in the embedded directory (scripts/core-payload.sh
// writes them).
const (
	payloadCore = "hermes-desktop-core.gz"
	payloadSum  = "hermes-desktop-core.sha256"
)

// Dir is where Locate keeps cores, under the state directory.
const Dir = "core"

// filePrefix starts every core's file name; the digest's first 16 hex
// digits follow, so each build gets its own file and a running shim's
// executable is never rewritten.
const filePrefix = "hermes-desktop-core-"

// IsCoreFile reports whether name (a base name) is a core's: the boot
// reaper knows our watchdog shims by it, as it knows "hermes-desktop".
func IsCoreFile(name string) bool {
	digest, ok := strings.CutPrefix(name, filePrefix)
	if !ok || len(digest) != 16 {
		return false
	}
	_, err := hex.DecodeString(digest)
	return err == nil && digest == strings.ToLower(digest)
}

// keep is how many cores stay in Dir: this build's and the newest other,
// which a predecessor still running during a handoff or a rollback uses.
const keep = 2

// maxCoreSize bounds what a payload may unpack to.
const maxCoreSize = 256 << 20

// checkTimeout bounds the run of `core version --json`.
const checkTimeout = 10 * time.Second

// ErrNoPayload means this build carries no core (every build but the
// desktop one for Linux).
var ErrNoPayload = errors.New("corebin: this build carries no core")

// Locate returns the core to use for this build (version is the running
// binary's), writing it under stateDir/core first when needed. On any
// error the caller uses its own executable instead; the error says why.
func Locate(stateDir, version string) (string, error) {
	return locate(payload(), filepath.Join(stateDir, Dir), version)
}

func locate(src fs.FS, dir, version string) (string, error) {
	if src == nil {
		return "", ErrNoPayload
	}
	want, err := payloadDigest(src)
	if err != nil {
		return "", err
	}
	if err := lockfile.EnsureDir(dir); err != nil {
		return "", fmt.Errorf("corebin: %w", err)
	}
	path := filepath.Join(dir, filePrefix+want[:16])
	if trusted(path, version, want) {
		return path, nil
	}
	// Missing, or not what we shipped (a torn or altered file): written
	// anew, by an atomic rename, so nothing ever runs a half-written core.
	if verify(path, want) != nil {
		if err := extract(src, path, want); err != nil {
			return "", err
		}
	}
	if err := checkRuns(path, version); err != nil {
		return "", err
	}
	stamp(path, version, want)
	prune(dir, path)
	return path, nil
}

// stampSuffix names a core's stamp (stamp_linux.go): the core's file name
// and this.
const stampSuffix = ".checked"

func stampPath(core string) string { return core + stampSuffix }

// payloadDigest reads the embedded core's expected SHA-256.
func payloadDigest(src fs.FS) (string, error) {
	data, err := fs.ReadFile(src, payloadSum)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoPayload
	}
	if err != nil {
		return "", fmt.Errorf("corebin: %w", err)
	}
	sum := strings.TrimSpace(string(data))
	if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size || sum != strings.ToLower(sum) {
		return "", fmt.Errorf("corebin: %s holds %q, not a SHA-256", payloadSum, sum)
	}
	return sum, nil
}

// verify checks that path is a core we wrote: a private regular file (not
// a link, ours, writable by nobody else), executable, with the digest want.
func verify(path, want string) error {
	if err := lockfile.CheckFile(path); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("corebin: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Mode().Perm()&0o100 == 0 {
		return fmt.Errorf("corebin: %s is not executable", path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("corebin: read %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("corebin: %s has SHA-256 %s, want %s", path, got, want)
	}
	return nil
}

// extract unpacks the payload to path through an atomic write, checking
// its digest before the rename: a core is whole or absent.
func extract(src fs.FS, path, want string) error {
	in, err := src.Open(payloadCore)
	if err != nil {
		return fmt.Errorf("corebin: %w", err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return fmt.Errorf("corebin: %s: %w", payloadCore, err)
	}
	return lockfile.WriteAtomic(path, 0o700, func(w io.Writer) error {
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(zr, maxCoreSize+1))
		if err == nil && n > maxCoreSize {
			err = fmt.Errorf("unpacks to over %d bytes", maxCoreSize)
		}
		if err != nil {
			return fmt.Errorf("corebin: write %s: %w", path, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			return fmt.Errorf("corebin: %s unpacks to SHA-256 %s, want %s", payloadCore, got, want)
		}
		return nil
	})
}

// checkRuns runs `core version --json` and wants this build's version: a
// state directory on a noexec mount, or a core that cannot start, shows
// here rather than as a backend that fails to start.
func checkRuns(path, version string) error {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "version", "--json")
	cmd.Stdout, cmd.Env = &out, []string{}
	if err := proc.RunChild(cmd); err != nil {
		return fmt.Errorf("corebin: run %s version: %w", path, err)
	}
	var got struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		return fmt.Errorf("corebin: %s version printed %q: %w", path, out.String(), err)
	}
	if got.Version != version {
		return fmt.Errorf("corebin: %s is version %q, want %q", path, got.Version, version)
	}
	return nil
}

// prune removes the cores in dir beyond the current one and the newest
// other, and the stamps of cores that are gone. Best effort: a core left over costs disk space only. Unlinking
// the executable of a shim still running is harmless on Linux (the inode
// lives on until it exits).
func prune(dir, current string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type core struct {
		path string
		mod  time.Time
	}
	var others []core
	stamps := map[string]bool{} // of the cores that stay
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if base, ok := strings.CutSuffix(e.Name(), stampSuffix); ok && IsCoreFile(base) {
			stamps[p] = false
			continue
		}
		if !IsCoreFile(e.Name()) || p == current || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			others = append(others, core{p, fi.ModTime()})
		}
	}
	slices.SortFunc(others, func(a, b core) int { return b.mod.Compare(a.mod) })
	stamps[stampPath(current)] = true
	for _, c := range others[:min(len(others), keep-1)] {
		stamps[stampPath(c.path)] = true
	}
	for _, c := range others[min(len(others), keep-1):] {
		_ = os.Remove(c.path)
	}
	for p, stays := range stamps {
		if !stays {
			_ = os.Remove(p)
		}
	}
}
