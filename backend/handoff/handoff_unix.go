//go:build unix

package handoff

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"

	"hermes-desktop/backend/instance"
)

// successorAttr starts a handoff's successor in a session of its own: it
// must outlive us, and a terminal's hangup must not reach it.
func successorAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// canAdopt: the backends are bound to their shims' lifelines, which cross
// as files; there is no job to hand down.
func canAdopt(*instance.LauncherJob) error { return nil }

// shimInJob: there is no launcher job; a shim is bound to its owner by its
// lifeline.
func shimInJob(*instance.LauncherJob, int) error { return nil }

// inheritance is what an adopt-mode successor inherits: files by position
// (ExtraFiles: fd 3 onwards), no jobs.
type inheritance struct {
	files []*os.File // in fd order from StateFD
	given []*os.File // ours only to pass on: closed once passed
}

func newInheritance() *inheritance { return &inheritance{} }

// file passes f at the next fd.
func (in *inheritance) file(f *os.File, give bool) (int, error) {
	in.files = append(in.files, f)
	if give {
		in.given = append(in.given, f)
	}
	return StateFD + len(in.files) - 1, nil
}

// job: Unix has no job objects; a run never names one.
func (in *inheritance) job(handle uintptr) (int, error) {
	if handle != 0 {
		return 0, fmt.Errorf("handoff: a job handle (%d) on an OS without jobs", handle)
	}
	return 0, nil
}

// own: a Unix view carries no job (always 0).
func (in *inheritance) own(uintptr) {}

// attach hands the files to cmd's child.
func (in *inheritance) attach(cmd *exec.Cmd) { cmd.ExtraFiles = in.files }

// release is called once the successor has started (or failed to): the
// files given away are closed, and ours go back to non-blocking mode
// (os/exec switched them to blocking as it took their fds). Idempotent.
func (in *inheritance) release() {
	for _, f := range in.given {
		f.Close()
	}
	restoreNonblock(in.files)
	in.files, in.given = nil, nil
}

// checkInherited checks the Unix layout: each backend's fds and each
// passed listener's are the ones their positions give them, and no job
// is passed. held (the state pipe's fd) needs no check: the positions
// after StateFD never name it.
func checkInherited(st State, _ []int) error {
	for i, b := range st.Backends {
		lifeline, stdout, stderr := BackendFDs(i)
		if b.Lifeline != lifeline || b.Stdout != stdout || b.Stderr != stderr {
			return fmt.Errorf("handoff: backend %d: fds %d/%d/%d, want %d/%d/%d", i, b.Lifeline, b.Stdout, b.Stderr, lifeline, stdout, stderr)
		}
		if b.Job != 0 {
			return fmt.Errorf("handoff: backend %d: a job handle (%d) where none is passed", i, b.Job)
		}
	}
	passed := 0
	for _, b := range st.Remote {
		if b.Listener != 0 && b.Listener != RemoteListenerFD(len(st.Backends), passed) {
			return fmt.Errorf("handoff: remote backend %q: listener fd %d, want %d", b.Status.Name, b.Listener, RemoteListenerFD(len(st.Backends), passed))
		}
		if b.Listener != 0 {
			passed++
		}
	}
	return nil
}

// heldNumbers: none to check, the positions keep a backend's fds apart
// from the state pipe's (checkInherited), and no job crosses. Fd is not
// called: it would make the state pipe blocking, past its read deadline.
func heldNumbers(*os.File, *instance.LauncherJob) []int { return nil }

// restoreNonblock puts files back in non-blocking mode after os/exec handed
// them to a child (taking their fd switches them to blocking), without
// calling Fd again: a blocking pipe could no longer be interrupted by Close.
func restoreNonblock(files []*os.File) {
	for _, f := range files {
		if rc, err := f.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), true) })
		}
	}
}

// executable: an execute bit, as exec(2) wants.
func executable(_ string, fi fs.FileInfo) bool { return fi.Mode().Perm()&0o111 != 0 }
