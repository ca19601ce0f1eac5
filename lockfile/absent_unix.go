//go:build unix

package lockfile

import (
	"errors"
	"io/fs"
)

// absent reports whether err, returned by an operation on path, proves that
// path does not exist. On Unix ENOENT says exactly that: a component that
// exists but is not a directory is ENOTDIR instead (open(2)), which is not
// fs.ErrNotExist and so stays an error.
func absent(path string, err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}
