package selfupdate

import (
	"context"
	"fmt"
	"hermes-desktop/backend/instance"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitReplaced blocks until the file stamped is replaced on disk (renamed
// over, rewritten, deleted and created anew: what a package manager does),
// or ctx ends. It watches the directory with inotify: no polling.
func waitReplaced(ctx context.Context, stamp instance.ExeStamp) error {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: read through the poller, so Close ends a Read
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	const mask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	if _, err := unix.InotifyAddWatch(fd, filepath.Dir(stamp.Path()), mask); err != nil {
		return fmt.Errorf("inotify watch %s: %w", filepath.Dir(stamp.Path()), err)
	}
	// Replaced between the stamp and the watch: no event will tell.
	if stamp.Changed() {
		return nil
	}
	name := filepath.Base(stamp.Path())
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("inotify read: %w", err)
		}
		if touched(buf[:n], name) && stamp.Changed() {
			return nil
		}
	}
}

// touched reports whether any event in buf names the file (or is about the
// directory itself).
func touched(buf []byte, name string) bool {
	for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		nameLen := int(ev.Len)
		end := off + unix.SizeofInotifyEvent + nameLen
		if end > len(buf) {
			return false
		}
		got := string(buf[off+unix.SizeofInotifyEvent : end])
		for len(got) > 0 && got[len(got)-1] == 0 {
			got = got[:len(got)-1]
		}
		if got == name || ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
			return true
		}
		off = end
	}
	return false
}
