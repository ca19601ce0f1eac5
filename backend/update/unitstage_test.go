package update

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/update/unit"
)

// coresFiles are a cores directory of version as remote-cores accepts it:
// VERSION, SHA256SUMS listing one core, and that core's file.
func coresFiles(version string) map[string][]byte {
	core := "hermes-desktop-core-linux-amd64" // a platform remote hosts have
	return map[string][]byte{
		"cores/VERSION":         []byte(version + "\n"),
		"cores/SHA256SUMS":      []byte("0000000000000000000000000000000000000000000000000000000000000000  " + core + "\n"),
		"cores/" + core + ".gz": []byte("core of " + version),
	}
}

// writeFiles puts files (slash paths) under dir, executable or not.
func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// unitRelease writes the unit of root as a unit tar (what Download leaves
// in <state>/updates/<version>) and returns it with a release of version
// that names it.
func unitRelease(t *testing.T, root, version string) (string, *Release) {
	t.Helper()
	path := filepath.Join(t.TempDir(), UnitTarName)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unit.WriteTar(f, root); err != nil {
		t.Fatal(err)
	}
	sum, err := unit.Digest(root)
	if err != nil {
		t.Fatal(err)
	}
	return path, &Release{Version: version, Artifact: Artifact{UnitSHA256: sum.SHA256, UnitSize: sum.Size}}
}

// withVersion is rel as another version claims it (the same unit).
func withVersion(rel *Release, version string) *Release {
	r := *rel
	r.Version = version
	return &r
}

// wantOnly checks that dir holds exactly names (in any order).
func wantOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	names = slices.Sorted(slices.Values(names))
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Errorf("%s: got %v, want %v", dir, got, names)
	}
}

// The smoke test of the staged cores runs without the variable that would
// point remote-cores elsewhere: it must be remotecore's.
func TestCoresEnvIsRemotecores(t *testing.T) {
	if coresEnv != remotecore.CoresEnv {
		t.Errorf("got %q, want remotecore.CoresEnv %q", coresEnv, remotecore.CoresEnv)
	}
}
