package update

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/update/unit"
)

// unitTree writes a unit (an executable, cores/ of version) into a new
// directory, with the install's own files beside it.
func unitTree(t *testing.T, exe, version string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		exe:                  "the executable of " + version,
		"cores/VERSION":      version + "\n",
		"cores/SHA256SUMS":   "00  hermes-desktop-core-linux-amd64\n",
		"LICENSE":            "MIT",
		MarkerFile:           TypePortable + "\n",
		"installed-files":    "f x\n",
		"cores/" + "core.gz": "core of " + version,
	}
	for rel, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// packUnit is the unit artifact of root and the unit it names.
func packUnit(t *testing.T, root string) ([]byte, unit.Sum) {
	t.Helper()
	var buf bytes.Buffer
	sum, err := unit.Compress(&buf, root)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), sum
}

// TestDownloadUnpacksTheUnit: a unit artifact is downloaded, unpacked to
// unit.tar and checked against the manifest's unit_sha256 and unit_size;
// the compressed file is not kept; a second call finds unit.tar. A
// manifest whose unit is not the artifact's is refused, nothing kept.
func TestDownloadUnpacksTheUnit(t *testing.T) {
	k := newKey(t)
	art, sum := packUnit(t, unitTree(t, "hermes-desktop", "1.1.0"))
	f := newFeed(t)
	f.publishWith(t, k, "1.1.0", "stable", "1.1.0", art, withUnit(sum.SHA256, sum.Size))
	c := newClient(t, f, k, "1.0.0")
	path, err := download(t, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != UnitTarName || unit.VerifyFile(path, sum) != nil {
		t.Fatalf("got %s, want the verified %s", path, UnitTarName)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), ArtifactName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the compressed artifact is still there: %v", err)
	}
	before := f.artifactGets.Load()
	if again, err := download(t, c, nil); err != nil || again != path || f.artifactGets.Load() != before {
		t.Errorf("second download: %s %v, %d more requests; want %s and none", again, err, f.artifactGets.Load()-before, path)
	}

	wrong := strings.Repeat("ab", 32)
	f.publishWith(t, k, "1.2.0", "stable", "1.2.0", art, withUnit(wrong, sum.Size))
	if _, err := download(t, c, nil); !errors.Is(err, ErrChecksum) {
		t.Fatalf("a manifest naming another unit: got %v, want ErrChecksum", err)
	}
	if left, _ := os.ReadDir(filepath.Join(c.cfg.Dir, "1.2.0")); len(left) != 0 {
		t.Errorf("left after a refused unit: %v", left)
	}
}

// withUnit makes a manifest's entry for this platform name a unit.
func withUnit(sha string, size int64) func(*Manifest) {
	return func(m *Manifest) {
		a := m.Platforms[Platform()]
		a.UnitSHA256, a.UnitSize = sha, size
		m.Platforms[Platform()] = a
	}
}

func TestManifestUnitFields(t *testing.T) {
	good := Artifact{URL: "x", SHA256: strings.Repeat("a", 64), Size: 1}
	for _, tc := range []struct {
		sha  string
		size int64
		ok   bool
	}{
		{"", 0, true},
		{strings.Repeat("b", 64), 10, true},
		{strings.Repeat("b", 64), 0, false},
		{"", 10, false},
		{strings.Repeat("B", 64), 10, false},
		{strings.Repeat("b", 64), unit.MaxSize + 1, false},
	} {
		a := good
		a.UnitSHA256, a.UnitSize = tc.sha, tc.size
		if err := a.validate(DefaultMaxArtifactSize); (err == nil) != tc.ok {
			t.Errorf("unit_sha256 %q unit_size %d: got %v, want ok %v", tc.sha, tc.size, err, tc.ok)
		}
	}
}
