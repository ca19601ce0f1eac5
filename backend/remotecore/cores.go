package remotecore

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Files of a cores directory, as scripts/remote-cores.sh writes them.
const (
	// SumsFile lists each core's SHA-256 (of the core, not of its .gz) in
	// sha256sum(1)'s format: `gunzip -k *.gz && sha256sum -c SHA256SUMS`.
	SumsFile = "SHA256SUMS"
	// VersionFile holds the version the cores were built as; a cores
	// directory of another version than the app is refused, not used.
	VersionFile = "VERSION"
	// corePrefix starts each core's name; "<goos>-<goarch>" follows, and
	// the file is that name gzip'd, with gzSuffix.
	corePrefix = "hermes-desktop-core-"
	gzSuffix   = ".gz"
)

// CoresEnv names a cores directory to use instead of the one shipped
// with the app (a build tree's, a test's).
const CoresEnv = "HERMES_DESKTOP_CORES"

// ErrNoCores means no cores directory was found next to the app: a build
// made without `make remote-cores`, or a package that does not carry them.
var ErrNoCores = errors.New("remotecore: no cores shipped with this build")

// ErrCoresVersion means the cores next to the app are of another version
// than the app: an executable copied or built without its cores (a
// self-update replaces both together: backend/update/unit). It is an
// ErrNoCores: there are none of this version.
var ErrCoresVersion = fmt.Errorf("%w: the cores are another version's", ErrNoCores)

// Cores is a cores directory: one core per platform, each with the SHA-256
// the build recorded. The zero value holds none.
type Cores struct {
	Dir     string
	Version string
	sums    map[Platform]string // lowercase hex SHA-256 of each core
}

// Core is one core on this machine, gzip'd.
type Core struct {
	Platform Platform
	Path     string // the .gz file
	Digest   string // lowercase hex SHA-256 of the core unpacked, from SHA256SUMS
}

// LocateCores finds the cores shipped with the running app, of version
// version: $HERMES_DESKTOP_CORES, else "cores" next to the executable (the
// archives, the Windows install, a build tree's build/bin), else
// ../lib/hermes-desktop/cores from it (the .deb's /usr/bin and /usr/lib).
func LocateCores(version string) (*Cores, error) {
	if dir := os.Getenv(CoresEnv); dir != "" {
		return OpenCores(dir, version)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("remotecore: find the app: %w", err)
	}
	for _, dir := range coreDirs(exe) {
		if _, err := os.Stat(filepath.Join(dir, SumsFile)); err == nil {
			return OpenCores(dir, version)
		}
	}
	return nil, fmt.Errorf("%w (looked next to %s; set %s to a cores directory)", ErrNoCores, exe, CoresEnv)
}

// coreDirs are where the cores of the executable exe may be, in order:
// beside it and in ../lib/hermes-desktop, first from exe with its links
// resolved (~/.local/bin/hermes-desktop links to the archive's install),
// then, if that differs or fails, from exe as named. Resolving fails under
// Wine 8 for an installed exe ("No more files"), and a cores directory
// beside the exe must be found there all the same.
func coreDirs(exe string) []string {
	var bins []string
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		bins = append(bins, filepath.Dir(resolved))
	}
	if bin := filepath.Dir(exe); len(bins) == 0 || bins[0] != bin {
		bins = append(bins, bin)
	}
	var dirs []string
	for _, bin := range bins {
		dirs = append(dirs, filepath.Join(bin, "cores"), filepath.Join(bin, "..", "lib", "hermes-desktop", "cores"))
	}
	return dirs
}

// OpenCores reads the cores directory dir, which must have been built as
// version.
func OpenCores(dir, version string) (*Cores, error) {
	v, err := os.ReadFile(filepath.Join(dir, VersionFile))
	if err != nil {
		return nil, fmt.Errorf("remotecore: cores: %w", err)
	}
	if got := strings.TrimSpace(string(v)); got != version {
		return nil, fmt.Errorf("%w: %s holds version %q, this app is %q (make remote-cores builds this version's). "+
			"Install %s from its package (the .deb, the archive's install.sh or the Windows installer) to get its cores, "+
			"or set %s to a cores directory of version %s",
			ErrCoresVersion, dir, got, version, version, CoresEnv, version)
	}
	sums, err := readSums(filepath.Join(dir, SumsFile))
	if err != nil {
		return nil, err
	}
	return &Cores{Dir: dir, Version: version, sums: sums}, nil
}

// readSums reads a SHA256SUMS file, keeping the lines of core files.
func readSums(path string) (map[Platform]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("remotecore: cores: %w", err)
	}
	defer f.Close()
	sums := map[Platform]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return nil, fmt.Errorf("remotecore: %s: line %q is not \"SHA-256  name\"", path, sc.Text())
		}
		p, ok := platformOf(name)
		if !ok {
			continue
		}
		if !isDigest(sum) {
			return nil, fmt.Errorf("remotecore: %s: %q is not a SHA-256", path, sum)
		}
		sums[p] = sum
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("remotecore: read %s: %w", path, err)
	}
	return sums, nil
}

// fileName is the name of p's core in SHA256SUMS; the file is it gzip'd.
func fileName(p Platform) string { return corePrefix + p.GOOS + "-" + p.GOARCH }

// CoreFileName is the file a cores directory keeps p's core in, gzip'd.
func CoreFileName(p Platform) string { return fileName(p) + gzSuffix }

// platformOf reads fileName back; only Platforms are known.
func platformOf(name string) (Platform, bool) {
	for _, p := range Platforms {
		if name == fileName(p) {
			return p, true
		}
	}
	return Platform{}, false
}

// isDigest reports whether s is a lowercase hex SHA-256.
func isDigest(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && s == strings.ToLower(s)
}

// Platforms are the platforms this directory holds a core for, in
// Platforms' order.
func (c *Cores) Platforms() []Platform {
	var ps []Platform
	for _, p := range Platforms {
		if _, ok := c.sums[p]; ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// Core returns the core for p, or an error wrapping ErrUnsupported when
// this directory has none for it.
func (c *Cores) Core(p Platform) (Core, error) {
	sum, ok := c.sums[p]
	if !ok {
		return Core{}, fmt.Errorf("%w: %s holds no core for %s", ErrUnsupported, c.Dir, p)
	}
	return Core{Platform: p, Path: filepath.Join(c.Dir, fileName(p)+gzSuffix), Digest: sum}, nil
}
