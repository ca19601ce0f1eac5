package instance

import (
	"os"
	"os/exec"
	"time"
)

// ExeStamp identifies an executable file's content on disk cheaply: a
// changed size, modification time or inode means it was replaced (as
// `hermes update` does, killing the backends it replaced).
type ExeStamp struct {
	path    string
	size    int64
	modTime time.Time
	ino     uint64
}

// StampExecutable stamps argv0 as the OS would find it; zero if it cannot.
func StampExecutable(argv0 string) ExeStamp {
	path, err := exec.LookPath(argv0)
	if err != nil {
		return ExeStamp{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ExeStamp{}
	}
	return ExeStamp{path: path, size: fi.Size(), modTime: fi.ModTime(), ino: fileInode(fi)}
}

// Path is the executable's path as stamped ("" when it could not be).
func (e ExeStamp) Path() string { return e.path }

// Changed reports whether the executable was replaced since the stamp.
func (e ExeStamp) Changed() bool {
	if e.path == "" {
		return false
	}
	now := StampExecutable(e.path)
	return now.path != "" && now != e
}
