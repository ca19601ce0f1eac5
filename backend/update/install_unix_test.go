//go:build unix

package update

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"time"

	"hermes-desktop/internal/testbin"
)

// exeName is what the installers name the binary.
const exeName = "hermes-desktop"

// fakeScript answers `version --json` with version, and `remote-cores
// --json` with the cores beside it, as a hermes-desktop binary does.
func fakeScript(version string) []byte {
	return []byte(`#!/bin/sh
d=$(cd "$(dirname "$0")" && pwd)
case "$1 $2" in
'version --json') echo '{"version":"` + version + `"}' ;;
'remote-cores --json') echo "{\"dir\":\"$d/cores\",\"version\":\"$(cat "$d/cores/VERSION")\",\"platforms\":[\"linux/amd64\"]}" ;;
*) exit 3 ;;
esac
`)
}

// fakeBinary writes fakeScript as dir/name.
func fakeBinary(t *testing.T, dir, name, version string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, fakeScript(version), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeUnit lays out a unit of version in dir: the fake binary, its cores
// (of coresVersion), a license.
func fakeUnit(t *testing.T, dir, version, coresVersion string) string {
	t.Helper()
	writeFiles(t, dir, coresFiles(coresVersion))
	writeFile(t, filepath.Join(dir, "LICENSE"), "MIT "+version)
	return fakeBinary(t, dir, exeName, version)
}

// TestStageSmokeSwapRestore: the staged unit must answer with the
// manifest's version for its executable and its cores; then the whole
// unit is swapped in, the old one kept, and a restore puts it back.
func TestStageSmokeSwapRestore(t *testing.T) {
	dir := t.TempDir()
	current := fakeUnit(t, dir, "1.0.0", "1.0.0")
	writeFile(t, filepath.Join(dir, MarkerFile), TypePortable)
	in, err := Inspect(current)
	if err != nil || !in.Target.Unit {
		t.Fatalf("Inspect: %+v %v, want a unit", in, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	artifact, rel := unitRelease(t, mkUnit(t, "1.1.0", "1.1.0"), "1.1.0")
	if _, err := Stage(ctx, artifact, in, withVersion(rel, "1.2.0")); !errors.Is(err, ErrSmoke) {
		t.Fatalf("staging with the wrong version: got %v, want ErrSmoke", err)
	}
	stale, staleRel := unitRelease(t, mkUnit(t, "1.1.0", "1.0.0"), "1.1.0")
	if _, err := Stage(ctx, stale, in, staleRel); !errors.Is(err, ErrSmoke) {
		t.Fatalf("staging cores of another version: got %v, want ErrSmoke", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Fatalf("a failed stage left %v", left)
	}
	staged, err := Stage(ctx, artifact, in, rel)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(staged) != dir {
		t.Errorf("staged in %s, want next to the target (%s)", filepath.Dir(staged), dir)
	}
	if err := Swap(staged, in.Target, Versions{From: "1.0.0", To: "1.1.0"}); err != nil {
		t.Fatal(err)
	}
	wantUnit(t, dir, "1.1.0")
	wantUnit(t, OldPath(in.Target), "1.0.0")
	if _, err := os.Stat(staged); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staged directory still there: %v", err)
	}
	// A second update replaces the one .old kept.
	artifact, rel = unitRelease(t, mkUnit(t, "1.2.0", "1.2.0"), "1.2.0")
	if staged, err = Stage(ctx, artifact, in, rel); err != nil {
		t.Fatal(err)
	}
	if err := Swap(staged, in.Target, Versions{From: "1.1.0", To: "1.2.0"}); err != nil {
		t.Fatal(err)
	}
	wantUnit(t, dir, "1.2.0")
	wantUnit(t, OldPath(in.Target), "1.1.0")
	if err := Restore(in.Target, Versions{From: "1.2.0", To: "1.1.0"}); err != nil {
		t.Fatal(err)
	}
	wantUnit(t, dir, "1.1.0")
	if _, err := os.Stat(OldPath(in.Target)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".old after a restore: %v, want it moved back", err)
	}
	wantOnly(t, dir, "LICENSE", "cores", exeName, MarkerFile)
}

// mkUnit is a fresh directory holding a fake unit.
func mkUnit(t *testing.T, version, coresVersion string) string {
	t.Helper()
	dir := t.TempDir()
	fakeUnit(t, dir, version, coresVersion)
	return dir
}

// wantUnit checks that dir holds the unit of version: the executable and
// the cores both say it.
func wantUnit(t *testing.T, dir, version string) {
	t.Helper()
	exe := filepath.Join(dir, exeName)
	wantVersion(t, exe, version)
	if err := SmokeCores(context.Background(), exe, version); err != nil {
		t.Errorf("%s: %v", dir, err)
	}
}

// TestSwapBundle: a macOS .app bundle is swapped whole. Bundles are macOS
// production behaviour (only install_darwin.go's bundleOf makes a bundle
// target; Windows never swaps one), but the swap is plain POSIX renames,
// the same on every Unix: it runs on Linux too, where the project's CI is.
func TestSwapBundle(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "Hermes Desktop.app")
	exe := filepath.Join(app, "Contents", "MacOS", "hermes-desktop")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	fakeBinary(t, filepath.Dir(exe), "hermes-desktop", "1.0.0")
	archive := testbin.TarGz(t, map[string]string{
		"Hermes Desktop.app/Contents/MacOS/hermes-desktop": "#!/bin/sh\necho '{\"version\":\"1.1.0\"}'\n",
		"Hermes Desktop.app/Contents/Info.plist":           "<plist/>",
	}, nil)
	in := Install{Exe: exe, Target: Target{Path: app, Bundle: true}}
	staged, err := Stage(context.Background(), archive, in, &Release{Version: "1.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := Swap(staged, in.Target, Versions{From: "1.0.0", To: "1.1.0"}); err != nil {
		t.Fatal(err)
	}
	wantVersion(t, exe, "1.1.0")
	wantVersion(t, filepath.Join(app+OldSuffix, "Contents", "MacOS", "hermes-desktop"), "1.0.0")
	if err := Restore(in.Target, Versions{From: "1.1.0", To: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	wantVersion(t, exe, "1.0.0")
}
