//go:build unix

package unit

import "os"

// setAside moves the entry at cur to aside. A file about to be replaced
// gets aside as a second name (a hard link) instead, and keeps cur until
// the incoming one is renamed over it in one step: the installed
// executable's path never goes missing, and a process running it keeps
// its inode whatever the names become. Where no link can be made (another
// file system's rules), or for a directory, it is a rename.
func setAside(cur, aside string, replaced bool) error {
	if replaced {
		if fi, err := os.Lstat(cur); err == nil && fi.Mode().IsRegular() && os.Link(cur, aside) == nil {
			return nil
		}
	}
	return os.Rename(cur, aside)
}
