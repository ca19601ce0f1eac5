package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrUnsafePath means a state path is a symlink, owned by another user,
// writable by group or others, or of the wrong type.
var ErrUnsafePath = errors.New("lockfile: unsafe path")

// EnsureDir creates dir (and missing parents) with mode 0700 and checks that
// it is safe to keep ownership state in: a real directory, not a symlink,
// owned by the current user and not writable by group or others. An existing
// directory is never chmod-ed behind the user's back: it is refused instead.
func EnsureDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("lockfile: empty directory path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("lockfile: resolve %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		// MkdirAll fails with "not a directory" on a symlink to a file and
		// would follow a symlink to a directory: the checks below decide.
		if _, lerr := os.Lstat(abs); lerr != nil {
			return fmt.Errorf("lockfile: create state dir %s: %w", abs, err)
		}
	}
	return CheckDir(abs)
}

// CheckDir verifies that dir is a safe, private directory (see EnsureDir).
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("lockfile: state dir %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symlink; point --state-dir at the real directory", ErrUnsafePath, dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafePath, dir)
	}
	return checkPrivate(dir, fi)
}

// CheckFile verifies that path is a private regular file: not a symlink,
// owned by the current user and not writable by group or others.
func CheckFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("lockfile: %w", err)
	}
	return checkFile(path, fi)
}

func checkFile(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symlink", ErrUnsafePath, path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrUnsafePath, path)
	}
	return checkPrivate(path, fi)
}

// ensureSubdir creates a private subdirectory of an already checked dir.
func ensureSubdir(parent, name string) (string, error) {
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("lockfile: create %s: %w", dir, err)
	}
	if err := CheckDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}
