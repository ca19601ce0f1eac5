package lockfiletest

import (
	"io/fs"
	"os"
	"testing"

	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// HasModeBits is false: Windows keeps no POSIX mode bits (Go reports 0666,
// or 0444 for a read-only file), so no file can be made "writable by
// others" through them.
const HasModeBits = false

// WantPrivate checks what keeps a state path private on Windows. Mode bits
// mean nothing there, so perm is not compared: the ACL inherited from the
// user's profile keeps other users out, and lockfile insists that the path
// is owned by this user and is no reparse point, which is checked here.
func WantPrivate(t testing.TB, path string, perm fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	check := lockfile.CheckFile
	if fi.IsDir() {
		check = lockfile.CheckDir
	}
	if err := check(path); err != nil {
		t.Errorf("%s: got %v, want a path private to this user", path, err)
	}
}

// Symlink makes a symbolic link or skips the test: Windows lets only
// privileged users (or developer mode) make one, and Wine reports one as
// made but makes nothing.
func Symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	if proc.UnderWine() {
		t.Skip("Wine reports symbolic links as created and makes none")
	}
	if err := os.Symlink(oldname, newname); err != nil {
		t.Skipf("cannot make symbolic links here (a privilege Windows gives few users): %v", err)
	}
}
