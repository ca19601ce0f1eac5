package corebin

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"hermes-desktop/lockfile"
)

// A stamp beside a core records the file as it was when it last passed
// verify and checkRuns, for this version and digest. A start that finds
// the same file trusts it without reading it whole and running it again:
// 20 ms of a warm start, and a 12 MB read from disk after a reboot. The
// same file is the same inode, size, modification and change time: a
// write, truncate, chmod or replacement sets the change time to now, which
// only root can set back. A stamp counts only when it was written after
// that time, in a later clock tick: a change in the tick the stamp was
// written in then shows as a change time no older than the stamp (git's
// "racy" index entries, the same way).

// stampOf is what a stamp records of the file path is now, with the file
// as read.
func stampOf(path, version, digest string) (string, unix.Stat_t, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return "", st, false
	}
	return fmt.Sprintf("v1 %s %s %d %d %d %d %d\n", version, digest, st.Dev, st.Ino, st.Size,
		st.Mtim.Nano(), st.Ctim.Nano()), st, true
}

// trusted reports whether path is a core this launcher checked before, as
// it is now: its stamp is ours, says this version and digest, matches the
// file, was written in a later tick than the file last changed, and the
// directory still allows running it.
func trusted(path, version, digest string) bool {
	stamp := stampPath(path)
	if lockfile.CheckFile(path) != nil || lockfile.CheckFile(stamp) != nil {
		return false
	}
	want, core, ok := stampOf(path, version, digest)
	if !ok {
		return false
	}
	got, err := os.ReadFile(stamp)
	var written unix.Stat_t
	if err != nil || string(got) != want || unix.Lstat(stamp, &written) != nil || core.Ctim.Nano() >= written.Mtim.Nano() {
		return false
	}
	var fs unix.Statfs_t
	return unix.Statfs(filepath.Dir(path), &fs) == nil && fs.Flags&unix.ST_NOEXEC == 0
}

// stamp records path as checked. Best effort: without a stamp the next
// start checks the core again. A stamp written in the clock tick of the
// core's last change would not count (trusted), and that is the usual case
// right after the core was written: it is written again once the tick has
// passed, a few milliseconds once per version, so the next start uses it.
func stamp(path, version, digest string) {
	line, core, ok := stampOf(path, version, digest)
	if !ok {
		return
	}
	for range stampTries {
		if lockfile.WriteFileAtomic(stampPath(path), []byte(line)) != nil {
			return
		}
		var written unix.Stat_t
		if unix.Lstat(stampPath(path), &written) != nil || core.Ctim.Nano() < written.Mtim.Nano() {
			return
		}
		time.Sleep(stampTick)
	}
}

// The wait for the tick of a core's last change to pass: file times move
// by the kernel's coarse clock (a jiffy, 1-10 ms).
const (
	stampTick  = 2 * time.Millisecond
	stampTries = 25
)
