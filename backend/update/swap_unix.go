//go:build unix

package update

import (
	"io"
	"os"
)

// swapFile: the current file gets a second name, .old (a hard link, or a
// copy where links are not possible), then the staged file is renamed over
// the current name in one step. The installed path never goes missing, and
// a failed rename leaves it untouched. The running process keeps its own
// inode whatever the names become.
func swapFile(staged, path string) error {
	old := path + OldSuffix
	tmp := old + ".tmp-" + randomSuffix()
	if err := os.Link(path, tmp); err != nil {
		if err := copyFile(path, tmp); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, old); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(staged, path)
}

// restoreFile renames .old over the failed version, in one step.
func restoreFile(path string) error {
	return os.Rename(path+OldSuffix, path)
}

// copyFile copies src to dst (created, mode 0755) and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}
