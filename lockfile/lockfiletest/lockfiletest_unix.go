//go:build unix

package lockfiletest

import (
	"io/fs"
	"os"
	"testing"
)

// HasModeBits says the OS keeps POSIX mode bits, so a test can make a file
// writable by others and expect it refused.
const HasModeBits = true

// WantPrivate checks that path has exactly mode perm: on Unix the mode bits
// are what keeps other users away from the state.
func WantPrivate(t testing.TB, path string, perm fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if got := fi.Mode().Perm(); got != perm {
		t.Errorf("%s: mode: got %v, want %v", path, got, perm)
	}
}

// Symlink makes a symbolic link; Unix always can.
func Symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		t.Fatal(err)
	}
}
