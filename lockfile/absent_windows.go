package lockfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// absent reports whether err, returned by an operation on path, proves that
// path does not exist. Windows answers ERROR_PATH_NOT_FOUND both when a
// parent directory is missing and when a file stands where a directory
// should be (Wine also answers it for a directory open of a file), and Go
// maps both to fs.ErrNotExist. Only the first is "nothing there": the
// second hides whatever should be there, so it must stay an error. Look at
// the path and its parents: absent means the nearest one that exists is a
// directory.
func absent(path string, err error) bool {
	if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	for p := filepath.Clean(path); ; {
		fi, err := os.Stat(p)
		switch {
		case err == nil:
			return p != filepath.Clean(path) && fi.IsDir()
		case !errors.Is(err, fs.ErrNotExist):
			return false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false // not even the volume is there (a lost share): cannot tell
		}
		p = parent
	}
}
