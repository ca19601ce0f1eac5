//go:build unix

package lockfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow makes opens fail on a symlink in the last path component.
const openNoFollow = syscall.O_NOFOLLOW

// checkPrivate refuses paths owned by another user or writable by group or
// others: anyone who can write there can forge ownership records.
func checkPrivate(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%w: %s: cannot read owner", ErrUnsafePath, path)
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d)", ErrUnsafePath, path, st.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s has mode %04o: it must not be writable by group or others (chmod go-w)", ErrUnsafePath, path, fi.Mode().Perm())
	}
	return nil
}
