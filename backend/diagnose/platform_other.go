//go:build !linux && !windows

package diagnose

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"hermes-desktop/backend/model"
)

func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

func platformFacts() [][2]string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return nil
	}
	return [][2]string{{"os", unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Machine[:])}}
}

func processFacts(int) [][2]string { return nil }

// processEnvs: another process's environment is not readable here; the
// patterns still apply.
func processEnvs(*model.Status) []string { return nil }
