package unit

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tree writes files (slash paths, contents) under a new directory and
// returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// install is an install directory as the Linux archive leaves it: the
// unit, and what is not the unit's (the marker, install.sh, its list).
func install(t *testing.T, version string) string {
	return tree(t, map[string]string{
		ExeUnix:                "#!/bin/sh\necho " + version + "\n",
		"LICENSE":              "MIT",
		"THIRD_PARTY_LICENSES": "modules",
		"cores/VERSION":        version + "\n",
		"cores/SHA256SUMS":     "00  hermes-desktop-core-linux-amd64\n",
		"cores/hermes-desktop-core-linux-amd64.gz": "core " + version,
		"install-type":    "portable\n",
		"install.sh":      "#!/bin/sh\n",
		"installed-files": "f x\n",
	})
}

func tarOf(t *testing.T, root string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTar(&buf, root); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTarIsCanonical: the unit's entries only, sorted, with canonical
// headers; the same files give the same bytes whatever their times and
// modes on disk; Digest is the tar's; and the tar rebuilt from an extracted
// copy (what delta does on a user's machine) is the same bytes again.
func TestTarIsCanonical(t *testing.T) {
	a := install(t, "1.1.0")
	b := install(t, "1.1.0")
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, rel := range []string{ExeUnix, "cores/VERSION", "LICENSE"} {
		if err := os.Chtimes(filepath.Join(b, filepath.FromSlash(rel)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(filepath.Join(a, ExeUnix), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb := tarOf(t, a), tarOf(t, b)
	if !bytes.Equal(ta, tb) {
		t.Fatal("two trees of the same files gave different tars")
	}
	var got []string
	tr := tar.NewReader(bytes.NewReader(ta))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %o", h.Name, h.Mode))
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.ModTime.Unix() != 0 {
			t.Errorf("%s: owner %d:%d %q:%q, mtime %v; want 0:0, no names, the epoch", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime)
		}
	}
	want := []string{"LICENSE 644", "THIRD_PARTY_LICENSES 644", "cores/ 755", "cores/SHA256SUMS 644",
		"cores/VERSION 644", "cores/hermes-desktop-core-linux-amd64.gz 644", "hermes-desktop 755"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sum, err := Digest(a)
	h := sha256.Sum256(ta)
	if err != nil || sum.SHA256 != hex.EncodeToString(h[:]) || sum.Size != int64(len(ta)) {
		t.Errorf("Digest: got %v %v, want the tar's sha256 and length %d", sum, err, len(ta))
	}
	dst := t.TempDir()
	if got, err := Extract(bytes.NewReader(ta), dst); err != nil || got != sum {
		t.Fatalf("Extract: got %v %v, want %v", got, err, sum)
	}
	if again := tarOf(t, dst); !bytes.Equal(again, ta) {
		t.Error("the tar of the extracted copy differs from the original tar")
	}
	if _, err := os.Stat(filepath.Join(dst, "install-type")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("install-type extracted: %v; it is not part of the unit", err)
	}
}

func TestWriteTarRefuses(t *testing.T) {
	cases := map[string]func(dir string) error{
		"no executable": func(dir string) error { return os.Remove(filepath.Join(dir, ExeUnix)) },
		"two executables": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ExeWindows), []byte("x"), 0o644)
		},
		"a hidden file in cores": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "cores", ".x"), []byte("x"), 0o644)
		},
		"a directory in place of a license": func(dir string) error {
			if err := os.Remove(filepath.Join(dir, "LICENSE")); err != nil {
				return err
			}
			return os.Mkdir(filepath.Join(dir, "LICENSE"), 0o755)
		},
	}
	if runtime.GOOS != "windows" {
		cases["a link in cores"] = func(dir string) error {
			return os.Symlink("/etc/passwd", filepath.Join(dir, "cores", "evil"))
		}
		cases["the executable a link"] = func(dir string) error {
			exe := filepath.Join(dir, ExeUnix)
			if err := os.Rename(exe, exe+"-real"); err != nil {
				return err
			}
			return os.Symlink(exe+"-real", exe)
		}
	}
	for name, spoil := range cases {
		dir := install(t, "1.1.0")
		if err := spoil(dir); err != nil {
			t.Fatal(err)
		}
		if err := WriteTar(io.Discard, dir); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
	}
}

// hdr is one entry of a hand-made tar.
type hdr struct {
	name string
	typ  byte
	mode int64
	body string
	link string
}

// handTar writes entries as given, canonical or not.
func handTar(t *testing.T, entries ...hdr) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Size: int64(len(e.body)), Linkname: e.link, ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	return buf.Bytes()
}

// TestExtractRefuses: anything but the canonical form is refused, and
// nothing lands outside the destination.
func TestExtractRefuses(t *testing.T) {
	exe := hdr{name: ExeUnix, typ: tar.TypeReg, mode: 0o755, body: "x"}
	cores := hdr{name: "cores/", typ: tar.TypeDir, mode: 0o755}
	file := func(name string) hdr { return hdr{name: name, typ: tar.TypeReg, mode: 0o644, body: "y"} }
	cases := map[string][]hdr{
		"dot-dot":               {cores, file("cores/../../evil"), exe},
		"absolute":              {file("/tmp/evil"), exe},
		"a link":                {cores, {name: "cores/l", typ: tar.TypeSymlink, mode: 0o777, link: "/etc"}, exe},
		"a hard link":           {cores, {name: "cores/l", typ: tar.TypeLink, link: ExeUnix}, exe},
		"not the unit's":        {file("install-type"), exe},
		"the uninstaller":       {exe, {name: "uninstall.exe", typ: tar.TypeReg, mode: 0o755, body: "x"}},
		"unsorted":              {exe, cores},
		"twice":                 {cores, cores, exe},
		"a file before its dir": {file("cores/VERSION"), exe},
		"a wrong mode":          {{name: ExeUnix, typ: tar.TypeReg, mode: 0o4755, body: "x"}},
		"no executable":         {cores},
		"two executables":       {exe, {name: ExeWindows, typ: tar.TypeReg, mode: 0o755, body: "x"}},
		"cores a file":          {file("cores"), exe},
		"a backslash":           {cores, file(`cores/..\..\evil`), exe},
	}
	for name, entries := range cases {
		parent := t.TempDir()
		dst := filepath.Join(parent, "dst")
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := Extract(bytes.NewReader(handTar(t, entries...)), dst); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
		if left, _ := os.ReadDir(parent); len(left) != 1 {
			t.Errorf("%s: %d entries beside the destination, want none", name, len(left)-1)
		}
	}
	ok := handTar(t, cores, file("cores/VERSION"), exe)
	if _, err := Extract(bytes.NewReader(ok), t.TempDir()); err != nil {
		t.Errorf("a canonical hand-made tar: %v", err)
	}
}

// TestCompressUnpack: the artifact unpacks to the unit tar the manifest
// names, and only to it: another digest or length is refused, and no
// unit.tar is left behind.
func TestCompressUnpack(t *testing.T) {
	root := install(t, "1.1.0")
	art := filepath.Join(t.TempDir(), "a.unit.tar.zst")
	f, err := os.Create(art)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Compress(f, root)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Digest(root); sum != want {
		t.Fatalf("Compress: got %v, want the Digest %v", sum, want)
	}
	dst := filepath.Join(t.TempDir(), "unit.tar")
	bad := []Sum{{SHA256: strings.Repeat("0", 64), Size: sum.Size}, {SHA256: sum.SHA256, Size: sum.Size - 1}, {SHA256: sum.SHA256, Size: sum.Size + 1}}
	for _, want := range bad {
		if err := Unpack(art, dst, want); !errors.Is(err, ErrDigest) {
			t.Errorf("Unpack as %v: got %v, want ErrDigest", want, err)
		}
		if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Unpack as %v left %s", want, dst)
		}
	}
	if err := Unpack(art, dst, sum); err != nil {
		t.Fatal(err)
	}
	if err := VerifyFile(dst, sum); err != nil {
		t.Error(err)
	}
	data, _ := os.ReadFile(art)
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(art, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Unpack(art, filepath.Join(t.TempDir(), "unit.tar"), sum); err == nil {
		t.Error("a corrupted artifact unpacked")
	}
}
