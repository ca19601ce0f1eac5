//go:build unix

package remotecore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOpenCoresRefuses(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	for name, tc := range map[string]struct{ version, sums string }{
		"other version":  {"0.9\n", sum + "  hermes-desktop-core-linux-amd64\n"},
		"not a sum":      {"1.0\n", "xyz  hermes-desktop-core-linux-amd64\n"},
		"uppercase sum":  {"1.0\n", strings.ToUpper(sum) + "  hermes-desktop-core-linux-amd64\n"},
		"not sum format": {"1.0\n", sum + " hermes-desktop-core-linux-amd64\n"},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, VersionFile), tc.version, 0o644)
		writeFile(t, filepath.Join(dir, SumsFile), tc.sums, 0o644)
		if _, err := OpenCores(dir, "1.0"); err == nil {
			t.Errorf("%s: OpenCores: got nil, want an error", name)
		}
	}
	if _, err := OpenCores(t.TempDir(), "1.0"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty directory: got %v, want ErrNotExist", err)
	}
}

func TestOpenCoresOtherVersion(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, VersionFile), "1.0\n", 0o644)
	writeFile(t, filepath.Join(dir, SumsFile), "", 0o644)
	_, err := OpenCores(dir, "1.1")
	if !errors.Is(err, ErrCoresVersion) || !errors.Is(err, ErrNoCores) || !strings.Contains(err.Error(), "from its package") || !strings.Contains(err.Error(), CoresEnv) {
		t.Errorf("OpenCores of 1.0 as 1.1: got %v, want ErrCoresVersion saying what to do", err)
	}
}

func TestCoresMissingPlatform(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, VersionFile), "1.0\n", 0o644)
	writeFile(t, filepath.Join(dir, SumsFile), strings.Repeat("ab", 32)+"  hermes-desktop-core-linux-amd64\n", 0o644)
	c, err := OpenCores(dir, "1.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Core(Platform{"darwin", "arm64"}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Core(darwin/arm64): got %v, want ErrUnsupported", err)
	}
	if got := c.Platforms(); len(got) != 1 || got[0] != (Platform{"linux", "amd64"}) {
		t.Errorf("Platforms: got %v, want [linux/amd64]", got)
	}
	if core, err := c.Core(Platform{"linux", "amd64"}); err != nil || core.Path != filepath.Join(dir, "hermes-desktop-core-linux-amd64.gz") {
		t.Errorf("Core(linux/amd64): got %+v, %v", core, err)
	}
}

// TestRealCore installs a core `make remote-cores` built, from
// $HERMES_DESKTOP_CORES (skipped without it, with its version in
// $HERMES_DESKTOP_CORES_VERSION), and runs its `version --json` on the
// local "remote" through Exec.
func TestRealCore(t *testing.T) {
	dir, version := os.Getenv(CoresEnv), os.Getenv("HERMES_DESKTOP_CORES_VERSION")
	if dir == "" || version == "" {
		t.Skipf("set %s and HERMES_DESKTOP_CORES_VERSION to a `make remote-cores` output", CoresEnv)
	}
	cores, err := LocateCores(version)
	if err != nil {
		t.Fatal(err)
	}
	r := &shellRemote{home: t.TempDir()}
	in := install(t, r, cores)
	out, err := r.Run(context.Background(), time.Minute, nil, in.Exec("version", "--json")...)
	if err != nil {
		t.Fatalf("core version: %v", err)
	}
	var got struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Version != version {
		t.Errorf("core version printed %q (%v), want version %q", out, err, version)
	}
}

// TestCoreDirs: beside the executable with its links resolved first, then
// as named (where resolving fails, as under Wine 8, or the link's own
// directory has them).
func TestCoreDirs(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, "lib", "hermes-desktop")
	bin := filepath.Join(root, "bin")
	for _, d := range []string{lib, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(lib, "hermes-desktop")
	writeFile(t, exe, "", 0o755)
	link := filepath.Join(bin, "hermes-desktop")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(lib, "cores"), filepath.Join(root, "lib", "lib", "hermes-desktop", "cores"),
		filepath.Join(bin, "cores"), filepath.Join(root, "lib", "hermes-desktop", "cores"),
	}
	if got := coreDirs(link); !slices.Equal(got, want) {
		t.Errorf("coreDirs(link):\n got %q\nwant %q", got, want)
	}
	if got := coreDirs(exe); !slices.Equal(got, want[:2]) {
		t.Errorf("coreDirs(exe): got %q, want %q", got, want[:2])
	}
	gone := filepath.Join(root, "gone", "hermes-desktop.exe")
	if got := coreDirs(gone); !slices.Equal(got, []string{filepath.Join(root, "gone", "cores"), filepath.Join(root, "lib", "hermes-desktop", "cores")}) {
		t.Errorf("coreDirs of a path that does not resolve: got %q", got)
	}
}
