package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"hermes-desktop/internal/testbin"
)

func TestExtractBundleRefuses(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		links map[string]string
	}{
		"dot-dot":         {files: map[string]string{"X.app/../evil": "x"}},
		"absolute":        {files: map[string]string{"/etc/evil": "x"}},
		"two bundles":     {files: map[string]string{"X.app/a": "x", "Y.app/b": "y"}},
		"not a bundle":    {files: map[string]string{"X/a": "x"}},
		"link leaving it": {files: map[string]string{"X.app/a": "x"}, links: map[string]string{"X.app/Contents/l": "../../../etc"}},
		"absolute link":   {files: map[string]string{"X.app/a": "x"}, links: map[string]string{"X.app/l": "/etc/passwd"}},
	}
	for name, tc := range cases {
		dst := filepath.Join(t.TempDir(), "dst")
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Extract(testbin.TarGz(t, tc.files, tc.links), dst); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want a refusal", name, err)
		}
	}
}

// TestExtractBundleStaysInside: links that each look harmless by their
// text (a -> ., then a/b -> .., which names the bundle itself when read
// from a/) make b a link to the bundle's parent once a is followed; a file
// written under b/ would land outside. Extraction goes through an os.Root
// of the bundle: the write is refused and nothing appears outside.
func TestExtractBundleStaysInside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("bundles are macOS's; making the archive's links on Windows needs a privilege the tests lack")
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range []*tar.Header{
		{Name: "X.app/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "X.app/a", Typeflag: tar.TypeSymlink, Linkname: "."},
		{Name: "X.app/a/b", Typeflag: tar.TypeSymlink, Linkname: ".."},
		{Name: "X.app/b/FILE", Typeflag: tar.TypeReg, Mode: 0o644, Size: 5},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte("owned"))
		}
	}
	tw.Close()
	zw.Close()
	archive := filepath.Join(t.TempDir(), "bundle.tar.gz")
	if err := os.WriteFile(archive, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	dst := filepath.Join(parent, "dst")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	err := Extract(archive, dst)
	if _, serr := os.Lstat(filepath.Join(parent, "FILE")); serr == nil || err == nil {
		t.Fatalf("extract: got %v, and %s written: %v; want a refusal and nothing outside", err, filepath.Join(parent, "FILE"), serr == nil)
	}
}
