package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/lockfile/lockfiletest"
)

// unitDir lays out a unit as a build output does: the executable (its
// bytes copied from exe, or exe itself as text), cores/ of version, the
// license files, and a file that is not the unit's.
func unitDir(t *testing.T, exeName, exe, version string) string {
	t.Helper()
	dir := t.TempDir()
	body := []byte(exe)
	if data, err := os.ReadFile(exe); err == nil {
		body = data
	}
	files := map[string][]byte{
		exeName:            body,
		"LICENSE":          []byte("MIT"),
		"cores/VERSION":    []byte(version + "\n"),
		"cores/SHA256SUMS": []byte("00  hermes-desktop-core-linux-amd64\n"),
		"cores/hermes-desktop-core-linux-amd64.gz": []byte("core"),
		"hermes-desktop.desktop":                   []byte("[Desktop Entry]\n"),
	}
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// exeFor is the executable's name in platform's unit.
func exeFor(platform string) string {
	if strings.HasPrefix(platform, "windows") {
		return unit.ExeWindows
	}
	return unit.ExeUnix
}

// pack runs `release pack` and returns the artifact's path, or "" and
// what it said.
func pack(t *testing.T, dir, platform, version string) (string, string) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr strings.Builder
	if code := run([]string{"pack", "-platform", platform, "-version", version, "-out", out, dir}, &stdout, &stderr); code != 0 {
		return "", stderr.String()
	}
	return filepath.Join(out, update.UnitArtifactName(version, platform)), stdout.String()
}

// TestKeygenPackSignVerify runs the tool as a release does and checks the
// client accepts what it wrote: one version, two platforms, then a newer
// version, and never an older one.
func TestKeygenPackSignVerify(t *testing.T) {
	keys, feed := t.TempDir(), t.TempDir()
	var out strings.Builder
	if code := run([]string{"keygen", "-out", keys}, &out, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	lockfiletest.WantPrivate(t, filepath.Join(keys, KeyFile), 0o600)
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code == 0 {
		t.Error("keygen overwrote an existing key")
	}
	pub, err := os.ReadFile(filepath.Join(keys, PubKeyFile))
	if err != nil || !strings.Contains(out.String(), "UPDATE_PUBKEY=") {
		t.Fatalf("update.pub: %v; output %q", err, out.String())
	}
	signAs := func(version, platform string) int {
		dir := unitDir(t, exeFor(platform), "the new binary", version)
		art, said := pack(t, dir, platform, version)
		if art == "" {
			t.Fatalf("pack %s %s: %s", version, platform, said)
		}
		return run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", version, "-channel", "stable",
			"-url", "dl/" + filepath.Base(art), "-out", feed, "-platform", platform, "-notes", "n", art}, io.Discard, io.Discard)
	}
	// A release signs one build per platform into one manifest: this one's
	// and another, whichever this is.
	second := "windows-amd64"
	if second == update.Platform() {
		second = "linux-amd64"
	}
	if signAs("1.1.0", update.Platform()) != 0 || signAs("1.1.0", second) != 0 {
		t.Fatal("sign failed")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(feed)))
	t.Cleanup(srv.Close)
	c := update.New(update.Config{FeedURL: srv.URL + "/stable.json", Keys: []string{string(pub)}, Current: "1.0.0"})
	rel, err := c.Check(context.Background())
	if err != nil || rel.Version != "1.1.0" || !rel.Artifact.IsUnit() {
		t.Fatalf("check: %+v %v, want 1.1.0 with its unit", rel, err)
	}
	m, err := update.ParseManifest(must(os.ReadFile(filepath.Join(feed, "stable.json"))), update.DefaultMaxArtifactSize)
	if err != nil || len(m.Platforms) != 2 {
		t.Fatalf("manifest: %+v %v, want two platforms", m, err)
	}
	if signAs("1.2.0", update.Platform()) != 0 {
		t.Fatal("sign 1.2.0 failed")
	}
	m, _ = update.ParseManifest(must(os.ReadFile(filepath.Join(feed, "stable.json"))), update.DefaultMaxArtifactSize)
	if m.Version != "1.2.0" || len(m.Platforms) != 1 {
		t.Errorf("after 1.2.0: %+v, want a new manifest with one platform", m)
	}
	if signAs("1.1.5", update.Platform()) == 0 {
		t.Error("signing an older version than the feed's was accepted")
	}
	other := update.New(update.Config{FeedURL: srv.URL + "/stable.json", Keys: []string{"RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"}, Current: "1.0.0"})
	if _, err := other.Check(context.Background()); !errors.Is(err, update.ErrSignature) {
		t.Errorf("another key: got %v, want ErrSignature", err)
	}
}

// TestPack: the artifact unpacks to the unit of the directory, whose
// digest the manifest records; packing again gives the same unit; a unit
// without this version's cores, or without the platform's executable, is
// refused; and sign refuses a bare executable where a unit is wanted.
func TestPack(t *testing.T) {
	dir := unitDir(t, unit.ExeUnix, "x", "1.1.0")
	art, said := pack(t, dir, "linux-amd64", "1.1.0")
	if art == "" {
		t.Fatalf("pack: %s", said)
	}
	want, err := unit.Digest(dir)
	if err != nil || !strings.Contains(said, "unit_sha256 "+want.SHA256) {
		t.Errorf("pack said %q, want unit_sha256 %s (%v)", said, want.SHA256, err)
	}
	if _, again := pack(t, dir, "linux-amd64", "1.1.0"); !strings.Contains(again, want.SHA256) {
		t.Errorf("a second pack: %q, want the same unit", again)
	}
	var out strings.Builder
	dist := filepath.Join(t.TempDir(), "not", "yet")
	if code := run([]string{"pack", "-platform", "linux-amd64", "-version", "1.1.0", "-out", dist, dir}, &out, &out); code != 0 {
		t.Errorf("pack into a directory not made yet: exit %d %q, want it made", code, out.String())
	}
	refused := []struct{ dir, platform, version, says string }{
		{dir, "linux-amd64", "1.2.0", `cores/VERSION says "1.1.0", not 1.2.0`},
		{dir, "windows-amd64", "1.1.0", "holds no hermes-desktop.exe"},
		{dir, "darwin-arm64", "1.1.0", ".app bundle"},
		{dir, "linux-amd64", "1.1", "not a version"},
	}
	for _, tc := range refused {
		if art, said := pack(t, tc.dir, tc.platform, tc.version); art != "" || !strings.Contains(said, tc.says) {
			t.Errorf("pack %s %s: got %q, want a refusal saying %q", tc.platform, tc.version, said, tc.says)
		}
	}
	keys := t.TempDir()
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatal("keygen")
	}
	var stderr strings.Builder
	bare := filepath.Join(dir, unit.ExeUnix)
	if code := run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", "1.1.0", "-url", "x", "-out", t.TempDir(),
		"-platform", "linux-amd64", bare}, io.Discard, &stderr); code == 0 || !strings.Contains(stderr.String(), "not a unit artifact") {
		t.Errorf("sign of a bare executable: exit %d %q, want a refusal", code, stderr.String())
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
