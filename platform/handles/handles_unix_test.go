//go:build unix

package handles

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Take makes an inherited fd close-on-exec and non-blocking.
func TestTakeUnix(t *testing.T) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil { // neither flag set, as an inherited fd may be
		t.Fatal(err)
	}
	defer unix.Close(p[1])
	f, err := Take(uintptr(p[0]), "r")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd, err := unix.FcntlInt(uintptr(p[0]), unix.F_GETFD, 0)
	if err != nil || fd&unix.FD_CLOEXEC == 0 {
		t.Errorf("close-on-exec: got flags %#x (%v), want FD_CLOEXEC", fd, err)
	}
	fl, err := unix.FcntlInt(uintptr(p[0]), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK == 0 {
		t.Errorf("non-blocking: got flags %#x (%v), want O_NONBLOCK", fl, err)
	}
}
