package update

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/internal/testbin"
)

// A staged binary of another flavour fails the smoke test.
func TestSmokeChecksFlavour(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "hermes-desktop")
	script := "#!/bin/sh\necho '{\"version\":\"1.1.0\",\"flavour\":\"webkit40\"}'\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Smoke(t.Context(), exe, "1.1.0")
	if !errors.Is(err, ErrSmoke) || !strings.Contains(err.Error(), "WebKitGTK 4.0") {
		t.Fatalf("got %v, want ErrSmoke naming the WebKitGTK 4.0 build", err)
	}
}

// ArtifactFlavour reads the WebKitGTK library a binary links, from real
// ELF files linked against a stand-in library of each soname.
func TestArtifactFlavour(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "setup.exe")
	if err := os.WriteFile(notELF, []byte("MZ\x90\x00 not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, want string
		fails      bool
	}{
		{testbin.LinkELF(t, dir, "app41", "libwebkit2gtk-4.1.so.0"), FlavourWebKit41, false},
		{testbin.LinkELF(t, dir, "app40", "libwebkit2gtk-4.0.so.37"), FlavourWebKit40, false},
		{testbin.LinkELF(t, dir, "headless"), "", false},
		{notELF, "", false},
		{testbin.LinkELF(t, dir, "both", "libwebkit2gtk-4.0.so.37", "libwebkit2gtk-4.1.so.0"), "", true},
	}
	for _, tc := range cases {
		got, err := ArtifactFlavour(tc.path)
		if got != tc.want || (err != nil) != tc.fails {
			t.Errorf("%s: got %q, %v; want %q (an error: %v)", filepath.Base(tc.path), got, err, tc.want, tc.fails)
		}
	}
	if _, err := ArtifactFlavour(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file: got no error")
	}
}
