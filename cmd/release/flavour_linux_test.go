package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/internal/testbin"
)

// A Linux desktop build is packed and signed only under its own flavour's
// key: pack checks the executable it packs, sign the one inside the unit.
func TestPackAndSignCheckFlavour(t *testing.T) {
	keys, feed, dir := t.TempDir(), t.TempDir(), t.TempDir()
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	app41 := unitDir(t, unit.ExeUnix, testbin.LinkELF(t, dir, "app41", "libwebkit2gtk-4.1.so.0"), "1.1.0")
	headless := unitDir(t, unit.ExeUnix, testbin.LinkELF(t, dir, "headless"), "1.1.0")
	cases := []struct {
		unit, own, platform string
		ok                  bool
		says                string
	}{
		{app41, "linux-amd64-webkit41", "linux-amd64-webkit41", true, ""},
		{app41, "linux-amd64-webkit41", "linux-amd64-webkit40", false, "its platform is linux-amd64-webkit41"},
		{app41, "linux-amd64-webkit41", "linux-amd64", false, "its platform is linux-amd64-webkit41"},
		{headless, "linux-amd64", "linux-amd64-webkit41", false, "links no WebKitGTK"},
		{headless, "linux-amd64", "linux-amd64", true, ""},
	}
	for _, tc := range cases {
		if art, said := pack(t, tc.unit, tc.platform, "1.1.0"); (art != "") != tc.ok || !strings.Contains(said, tc.says) {
			t.Errorf("pack as %s: got %q, want success %v saying %q", tc.platform, said, tc.ok, tc.says)
		}
		art, said := pack(t, tc.unit, tc.own, "1.1.0")
		if art == "" {
			t.Fatalf("pack as %s: %s", tc.own, said)
		}
		var stderr strings.Builder
		code := run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", "1.1.0", "-url", "dl/x",
			"-out", feed, "-platform", tc.platform, art}, io.Discard, &stderr)
		if (code == 0) != tc.ok || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("sign the %s unit as %s: got exit %d %q, want success %v saying %q", tc.own, tc.platform, code, stderr.String(), tc.ok, tc.says)
		}
	}
}

// artifactFlavour reads the WebKitGTK library a binary links, from real
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
		{testbin.LinkELF(t, dir, "app41", "libwebkit2gtk-4.1.so.0"), update.FlavourWebKit41, false},
		{testbin.LinkELF(t, dir, "app40", "libwebkit2gtk-4.0.so.37"), update.FlavourWebKit40, false},
		{testbin.LinkELF(t, dir, "headless"), "", false},
		{notELF, "", false},
		{testbin.LinkELF(t, dir, "both", "libwebkit2gtk-4.0.so.37", "libwebkit2gtk-4.1.so.0"), "", true},
	}
	for _, tc := range cases {
		got, err := artifactFlavour(tc.path)
		if got != tc.want || (err != nil) != tc.fails {
			t.Errorf("%s: got %q, %v; want %q (an error: %v)", filepath.Base(tc.path), got, err, tc.want, tc.fails)
		}
	}
	if _, err := artifactFlavour(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file: got no error")
	}
}
