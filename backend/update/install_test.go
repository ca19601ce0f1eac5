package update

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/lockfile/lockfiletest"
)

// writeFile writes a file the tests need only as bytes, never as a program.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// wantInstall checks what Inspect found for exe: its real path (links
// resolved, so the name the installer gave it, .exe and all on Windows)
// as Exe and as the target, and whether it is self-managed (then the
// target is its unit).
func wantInstall(t *testing.T, in Install, exe string, selfManaged bool) {
	t.Helper()
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}
	if in.Exe != real || in.Target != (Target{Path: real, Unit: selfManaged}) || in.SelfManaged() != selfManaged {
		t.Errorf("got %+v (self-managed %v), want %s, self-managed %v", in, in.SelfManaged(), real, selfManaged)
	}
}

func TestInspect(t *testing.T) {
	cases := []struct {
		marker      string // "" for none
		selfManaged bool
	}{
		{"portable\n", true},
		{"nsis-user", true},
		{"", false},
		{"deb", false},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		exe := filepath.Join(dir, exeName)
		writeFile(t, exe, "the installed binary")
		if tc.marker != "" {
			if err := os.WriteFile(filepath.Join(dir, MarkerFile), []byte(tc.marker), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		in, err := Inspect(exe)
		if err != nil {
			t.Fatal(err)
		}
		wantInstall(t, in, exe, tc.selfManaged)
		if !tc.selfManaged && (in.Why() == "" || in.UpdateCommand("1.1.0") == "") {
			t.Errorf("marker %q: no reason (%q) or command (%q)", tc.marker, in.Why(), in.UpdateCommand("1.1.0"))
		}
	}
	if got := (Install{Manager: "dpkg"}).UpdateCommand("1.1.0"); got != "sudo apt install ./hermes-desktop_1.1.0_webkit41_amd64.deb" {
		t.Errorf("dpkg command: got %q", got)
	}
}

// TestInspectResolvesSymlink: a copy started through a symlink, as
// ~/.local/bin/hermes-desktop is, is the file the link names: that is what
// a swap replaces and where the marker is looked for.
func TestInspectResolvesSymlink(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, exeName)
	writeFile(t, exe, "the installed binary")
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), []byte(TypePortable), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), exeName)
	lockfiletest.Symlink(t, exe, link)
	in, err := Inspect(link)
	if err != nil {
		t.Fatal(err)
	}
	wantInstall(t, in, exe, true)
}

// TestStageRemovesLeftovers: what earlier updates left next to the target
// (a staged copy of an interrupted one; a failed version or an older .old
// moved aside because it still ran) goes at the next Stage, even one whose
// smoke test fails; nothing else in the directory is touched.
func TestStageRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	current := filepath.Join(dir, exeName)
	leftovers := []string{"." + exeName + ".update-123", exeName + ".failed-0a1b2c", exeName + ".old.del-0a1b2c"}
	kept := []string{exeName, exeName + ".old", "other" + ".failed-0a1b2c", exeName + ".failedx", exeName + ".old.delx"}
	for _, name := range append(append([]string(nil), leftovers...), kept...) {
		writeFile(t, filepath.Join(dir, name), name)
	}
	root := t.TempDir()
	writeFiles(t, root, coresFiles("1.1.0"))
	writeFile(t, filepath.Join(root, exeName), "not a program")
	artifact, rel := unitRelease(t, root, "1.1.0")
	in := Install{Exe: current, Target: Target{Path: current, Unit: true}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := Stage(ctx, artifact, in, rel); !errors.Is(err, ErrSmoke) {
		t.Fatalf("staging a non-program: got %v, want ErrSmoke", err)
	}
	for _, name := range leftovers {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: got %v, want it removed", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: got %v, want it kept", name, err)
		}
	}
}

func TestSwapFailureLeavesTheTarget(t *testing.T) {
	dir := t.TempDir()
	current := filepath.Join(dir, exeName)
	writeFile(t, current, "the installed binary")
	before, _ := os.ReadFile(current)
	err := Swap(filepath.Join(dir, ".missing"), Target{Path: current, Unit: true}, Versions{From: "1.0.0", To: "1.1.0"})
	if !errors.Is(err, ErrSwap) {
		t.Fatalf("got %v, want ErrSwap", err)
	}
	if after, _ := os.ReadFile(current); !bytes.Equal(before, after) {
		t.Error("the target changed after a failed swap")
	}
	wantOnly(t, dir, exeName)
}

// TestStageRefusesAnotherUnit: a unit tar that is not the one the
// manifest names, a manifest without a unit, and a unit of the other OS
// are refused before anything runs, and nothing is left.
func TestStageRefusesAnotherUnit(t *testing.T) {
	dir := t.TempDir()
	current := filepath.Join(dir, exeName)
	writeFile(t, current, "the installed binary")
	in := Install{Exe: current, Target: Target{Path: current, Unit: true}}
	root := t.TempDir()
	writeFiles(t, root, coresFiles("1.1.0"))
	writeFile(t, filepath.Join(root, exeName), "the new binary")
	artifact, rel := unitRelease(t, root, "1.1.0")
	other := t.TempDir()
	writeFiles(t, other, coresFiles("1.1.0"))
	otherExe := "hermes-desktop.exe"
	if exeName == otherExe {
		otherExe = "hermes-desktop"
	}
	writeFile(t, filepath.Join(other, otherExe), "another OS's binary")
	otherArtifact, otherRel := unitRelease(t, other, "1.1.0")
	notUnit := withVersion(rel, "1.1.0")
	notUnit.Artifact = Artifact{}
	wrong := withVersion(rel, "1.1.0")
	wrong.Artifact.UnitSHA256 = strings.Repeat("ab", 32)
	for name, tc := range map[string]struct {
		artifact string
		rel      *Release
		want     error
	}{
		"another digest":    {artifact, wrong, ErrChecksum},
		"no unit":           {artifact, notUnit, ErrFeed},
		"another OS's unit": {otherArtifact, otherRel, ErrSmoke},
	} {
		if _, err := Stage(context.Background(), tc.artifact, in, tc.rel); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", name, err, tc.want)
		}
		wantOnly(t, dir, exeName)
	}
}

func wantVersion(t *testing.T, exe, version string) {
	t.Helper()
	if err := Smoke(context.Background(), exe, version); err != nil {
		t.Errorf("%s: %v", exe, err)
	}
}

func TestPolicyFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "updates")
	if _, bad := IsBad(dir, "1.1.0"); bad || Skipped(dir) != "" || TakeRollback(dir) != nil || ReadProbation(dir) != nil {
		t.Fatal("an empty directory has no policy")
	}
	if err := MarkBad(dir, BadVersion{Version: "1.1.0", Reason: "exited"}); err != nil {
		t.Fatal(err)
	}
	if err := MarkBad(dir, BadVersion{Version: "1.1.0", Reason: "again"}); err != nil {
		t.Fatal(err)
	}
	if b, bad := IsBad(dir, "1.1.0"); !bad || b.Reason != "again" {
		t.Errorf("IsBad: got %+v %v", b, bad)
	}
	if _, bad := IsBad(dir, "1.1.1"); bad {
		t.Error("a newer version is not bad")
	}
	if err := Skip(dir, "1.2.0"); err != nil || Skipped(dir) != "1.2.0" {
		t.Errorf("Skip: %v, skipped %q", err, Skipped(dir))
	}
	if err := Skip(dir, "../x"); err == nil {
		t.Error("Skip took a non-version")
	}
	if err := RecordRollback(dir, Rollback{From: "1.1.0", To: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	if r := TakeRollback(dir); r == nil || r.From != "1.1.0" || TakeRollback(dir) != nil {
		t.Errorf("TakeRollback: got %+v, then want nothing", r)
	}
	p := Probation{Version: "1.1.0", Previous: "1.0.0", Target: Target{Path: "/x"}, Started: time.Now(), Window: time.Minute}
	if err := WriteProbation(dir, p); err != nil {
		t.Fatal(err)
	}
	if got := ReadProbation(dir); got == nil || got.Version != "1.1.0" || got.Window != time.Minute || got.Target.Path != "/x" {
		t.Errorf("ReadProbation: got %+v", got)
	}
	if err := ClearProbation(dir); err != nil || ReadProbation(dir) != nil {
		t.Errorf("ClearProbation: %v", err)
	}
	for _, v := range []string{"1.0.0", "1.1.0", "1.2.0", "not-a-version"} {
		if err := os.MkdirAll(filepath.Join(dir, v), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	PruneOlder(dir, "1.1.0")
	for v, want := range map[string]bool{"1.0.0": false, "1.1.0": false, "1.2.0": true, "not-a-version": true} {
		if _, err := os.Stat(filepath.Join(dir, v)); (err == nil) != want {
			t.Errorf("after PruneOlder(1.1.0): %s there = %v, want %v", v, err == nil, want)
		}
	}
	lockfiletest.WantPrivate(t, dir, 0o700)
}
