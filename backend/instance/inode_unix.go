//go:build unix

package instance

import (
	"os"
	"syscall"
)

// fileInode is the file's inode: a replaced file gets a new one.
func fileInode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
