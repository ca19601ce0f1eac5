package lockfile

import (
	"io/fs"
	"os"
	"testing"

	"hermes-desktop/platform/proc"
)

// hasModeBits is false: Windows keeps no POSIX mode bits (Go reports 0666
// or 0444 from the read-only attribute), so no file can be made "writable
// by others" through them.
const hasModeBits = false

// wantPrivate checks what keeps a state path private on Windows: the mode
// bits mean nothing there (perm is ignored), the ACL inherited from the
// user's profile keeps other users out, and checkPrivate insists that the
// path is ours (owned by this user) and not a reparse point.
func wantPrivate(t *testing.T, path string, perm fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := checkPrivate(path, fi); err != nil {
		t.Errorf("%s: got %v, want a path private to this user", path, err)
	}
}

// symlink makes a symbolic link or skips the test: Windows lets only
// privileged users (or developer mode) make one, and Wine reports one as
// made but makes nothing.
func symlink(t *testing.T, oldname, newname string) {
	t.Helper()
	if proc.UnderWine() {
		t.Skip("Wine reports symbolic links as created and makes none")
	}
	if err := os.Symlink(oldname, newname); err != nil {
		t.Skipf("cannot make symbolic links here (a privilege Windows gives few users): %v", err)
	}
}
