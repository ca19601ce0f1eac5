package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/internal/testbin"
)

// A Linux desktop build is signed only under its own flavour's key.
func TestSignChecksFlavour(t *testing.T) {
	keys, feed, dir := t.TempDir(), t.TempDir(), t.TempDir()
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	app41 := testbin.LinkELF(t, dir, "app41", "libwebkit2gtk-4.1.so.0")
	headless := testbin.LinkELF(t, dir, "headless")
	cases := []struct {
		artifact, platform string
		ok                 bool
		says               string
	}{
		{app41, "linux-amd64-webkit41", true, ""},
		{app41, "linux-amd64-webkit40", false, "sign it as linux-amd64-webkit41"},
		{app41, "linux-amd64", false, "sign it as linux-amd64-webkit41"},
		{headless, "linux-amd64-webkit41", false, "links no WebKitGTK"},
		{headless, "linux-amd64", true, ""},
	}
	for _, tc := range cases {
		var stderr strings.Builder
		code := run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", "1.1.0", "-url", "dl/x",
			"-out", feed, "-platform", tc.platform, tc.artifact}, io.Discard, &stderr)
		if (code == 0) != tc.ok || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("sign %s as %s: got exit %d %q, want success %v saying %q", filepath.Base(tc.artifact), tc.platform, code, stderr.String(), tc.ok, tc.says)
		}
	}
}
