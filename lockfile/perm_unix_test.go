//go:build unix

package lockfile

import (
	"io/fs"
	"os"
	"testing"
)

// hasModeBits says the OS keeps POSIX mode bits, so a test can make a file
// writable by others and expect it refused.
const hasModeBits = true

// wantPrivate checks that path has exactly mode perm: on Unix the mode
// bits are what keeps other users away from the state.
func wantPrivate(t *testing.T, path string, perm fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if got := fi.Mode().Perm(); got != perm {
		t.Errorf("%s: mode: got %v, want %v", path, got, perm)
	}
}

// symlink makes a symbolic link; Unix always can.
func symlink(t *testing.T, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		t.Fatal(err)
	}
}
