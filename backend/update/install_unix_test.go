//go:build unix

package update

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// exeName is what the installers name the binary.
const exeName = "hermes-desktop"

// fakeBinary writes a shell script that answers `version --json` with
// version, as a hermes-desktop binary does.
func fakeBinary(t *testing.T, dir, name, version string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	script := "#!/bin/sh\n[ \"$1 $2\" = 'version --json' ] && echo '{\"version\":\"" + version + "\"}' && exit 0\nexit 3\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStageSmokeSwapRestore(t *testing.T) {
	dir := t.TempDir()
	current := fakeBinary(t, dir, "hermes-desktop", "1.0.0")
	artifact := fakeBinary(t, t.TempDir(), "artifact", "1.1.0")
	if err := os.Chmod(artifact, 0o600); err != nil { // as downloaded
		t.Fatal(err)
	}
	in := Install{Exe: current, Target: Target{Path: current}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	if _, err := Stage(ctx, artifact, in, "1.2.0"); !errors.Is(err, ErrSmoke) {
		t.Fatalf("staging with the wrong version: got %v, want ErrSmoke", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Fatalf("a failed stage left %v", left)
	}
	staged, err := Stage(ctx, artifact, in, "1.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(staged) != dir {
		t.Errorf("staged in %s, want next to the target (%s)", filepath.Dir(staged), dir)
	}
	if err := Swap(staged, in.Target); err != nil {
		t.Fatal(err)
	}
	wantVersion(t, current, "1.1.0")
	wantVersion(t, OldPath(in.Target), "1.0.0")
	if _, err := os.Stat(staged); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staged file still there: %v", err)
	}
	// A second update replaces the one .old kept.
	staged, err = Stage(ctx, fakeBinary(t, t.TempDir(), "a", "1.2.0"), in, "1.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := Swap(staged, in.Target); err != nil {
		t.Fatal(err)
	}
	wantVersion(t, current, "1.2.0")
	wantVersion(t, OldPath(in.Target), "1.1.0")
	if err := Restore(in.Target); err != nil {
		t.Fatal(err)
	}
	wantVersion(t, current, "1.1.0")
	if _, err := os.Stat(OldPath(in.Target)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".old after a restore: %v, want it moved back", err)
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
	archive := bundleArchive(t, map[string]string{
		"Hermes Desktop.app/Contents/MacOS/hermes-desktop": "#!/bin/sh\necho '{\"version\":\"1.1.0\"}'\n",
		"Hermes Desktop.app/Contents/Info.plist":           "<plist/>",
	}, nil)
	in := Install{Exe: exe, Target: Target{Path: app, Bundle: true}}
	staged, err := Stage(context.Background(), archive, in, "1.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := Swap(staged, in.Target); err != nil {
		t.Fatal(err)
	}
	wantVersion(t, exe, "1.1.0")
	wantVersion(t, filepath.Join(app+OldSuffix, "Contents", "MacOS", "hermes-desktop"), "1.0.0")
	if err := Restore(in.Target); err != nil {
		t.Fatal(err)
	}
	wantVersion(t, exe, "1.0.0")
}
