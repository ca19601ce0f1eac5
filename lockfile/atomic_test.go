package lockfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteAtomicAllOrNothing checks that a failing write leaves the old
// file and no temporary file, and that a successful one replaces it.
func TestWriteAtomicAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := WriteFileAtomic(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("digest does not match")
	err := WriteAtomic(path, 0o600, func(w io.Writer) error {
		_, _ = w.Write([]byte("half of the new"))
		return bad
	})
	if !errors.Is(err, bad) {
		t.Fatalf("WriteAtomic with a failing write: got %v, want %v", err, bad)
	}
	assertOnly(t, dir, path, "old")
	err = WriteAtomic(path, 0o600, func(w io.Writer) error {
		_, err := w.Write([]byte("new"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, path, "new")
}

// assertOnly checks that dir holds path alone, with want in it.
func assertOnly(t *testing.T, dir, path, want string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != filepath.Base(path) {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v, want only %s", names, filepath.Base(path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want {
		t.Fatalf("%s holds %q, want %q", path, data, want)
	}
}

// TestWriteAtomicMode checks that the file gets perm, whatever the umask
// and whatever mode the file it replaces had.
func TestWriteAtomicMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core")
	if err := WriteFileAtomic(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	wantPrivate(t, path, 0o600)
	if !hasModeBits {
		return // the bits below mean nothing there
	}
	for _, perm := range []os.FileMode{0o700, 0o644} {
		if err := WriteAtomic(path, perm, func(w io.Writer) error { return nil }); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != perm {
			t.Errorf("mode: got %v, want %v", got, perm)
		}
	}
}
