package handoff

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"

	"hermes-desktop/backend/instance"
)

// successorAttr starts a handoff's successor outside our kill-on-close job
// (it must outlive us; an adopt-mode successor joins the job again with
// the handle it inherits) and without our console.
func successorAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_BREAKAWAY_FROM_JOB | windows.DETACHED_PROCESS}
}

// canAdopt: an adopt-mode successor must join our job (the backends'
// trees are born in it, and it dies with its last handle): without one,
// it would refuse every backend.
func canAdopt(launcherJob *instance.LauncherJob) error {
	if launcherJob == nil {
		return errors.New("this instance runs in no job (it could not make one at start), so its successor could not keep the backends")
	}
	return nil
}

// shimInJob: a shim must live in the launcher's job we joined, which
// keeps it once the predecessor is gone.
func shimInJob(launcherJob *instance.LauncherJob, shim int) error {
	if held, err := launcherJob.Holds(shim); err != nil || !held {
		return fmt.Errorf("its shim %d is not in the launcher's job we joined (%v)", shim, err)
	}
	return nil
}

// inheritance is what an adopt-mode successor inherits: handles, by value.
// Each is an inheritable duplicate made for this start alone and closed
// after it, so our own handles stay non-inheritable; only the successor,
// whose handle list names them (Go's StartProcess passes
// PROC_THREAD_ATTRIBUTE_HANDLE_LIST), receives them.
type inheritance struct {
	dups  []windows.Handle // closed once passed
	given []*os.File       // ours only to pass on: closed once passed
	owned []windows.Handle // the views' copies of their jobs: closed once passed
}

func newInheritance() *inheritance { return &inheritance{} }

// file passes a duplicate of f's handle; its value is the number.
func (in *inheritance) file(f *os.File, give bool) (int, error) {
	if give {
		in.given = append(in.given, f)
	}
	return in.dup(f.Fd())
}

// job passes a duplicate of a job's handle; 0 passes nothing.
func (in *inheritance) job(handle uintptr) (int, error) {
	if handle == 0 {
		return 0, nil
	}
	return in.dup(handle)
}

// own takes a view's copy of its tree's job (run.Handover.Job), closed
// on release; 0 is none.
func (in *inheritance) own(job uintptr) {
	if job != 0 {
		in.owned = append(in.owned, windows.Handle(job))
	}
}

func (in *inheritance) dup(h uintptr) (int, error) {
	self := windows.CurrentProcess()
	var d windows.Handle
	if err := windows.DuplicateHandle(self, windows.Handle(h), self, &d, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
		return 0, fmt.Errorf("handoff: pass handle %d: %w", h, err)
	}
	in.dups = append(in.dups, d)
	return int(d), nil
}

// attach adds the duplicates to the handles cmd's child inherits.
func (in *inheritance) attach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	for _, d := range in.dups {
		cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, syscall.Handle(d))
	}
}

// release is called once the successor has started (or failed to): our
// duplicates and the files given away are closed. Idempotent.
func (in *inheritance) release() {
	for _, d := range append(in.dups, in.owned...) {
		windows.CloseHandle(d)
	}
	for _, f := range in.given {
		f.Close()
	}
	in.dups, in.given, in.owned = nil, nil, nil
}

// checkInherited checks the handles by value: every one is ours (the
// predecessor passed it), named once, and of its kind: the lifeline and
// the output pipes are pipes, a tree's job is checked as it is taken
// (instance.InheritTreeJob and Adopt: a job that holds the shim). No
// listener crosses on Windows. held are the handles we already took (the
// state pipe's, the launcher job's): a backend naming one of them is
// refused, or a teardown of its tree would terminate the launcher's whole
// job, or its lifeline would be the state pipe Receive has closed.
func checkInherited(st State, held []int) error {
	seen := map[int]bool{}
	for _, h := range held {
		if h != 0 {
			seen[h] = true
		}
	}
	for i, b := range st.Backends {
		hs := []int{b.Lifeline, b.Stdout, b.Stderr}
		if b.Job != 0 { // else the predecessor had no job for this tree
			hs = append(hs, b.Job)
		}
		for _, h := range hs {
			if h <= 0 || seen[h] {
				return fmt.Errorf("handoff: backend %d: handles %d/%d/%d/%d: each must be a distinct handle", i, b.Lifeline, b.Stdout, b.Stderr, b.Job)
			}
			seen[h] = true
		}
		for _, h := range []int{b.Lifeline, b.Stdout, b.Stderr} {
			if t, err := windows.GetFileType(windows.Handle(h)); err != nil || t != windows.FILE_TYPE_PIPE {
				return fmt.Errorf("handoff: backend %d: handle %d is not a pipe (%v)", i, h, err)
			}
		}
	}
	for _, b := range st.Remote {
		if b.Listener != 0 {
			return fmt.Errorf("handoff: remote backend %q: a listener handle (%d), which Windows never passes", b.Status.Name, b.Listener)
		}
	}
	return nil
}

// heldNumbers are the handles a successor took before it reads the state:
// the state pipe's and the launcher job's (0 when it has none).
func heldNumbers(statePipe *os.File, launcherJob *instance.LauncherJob) []int {
	return []int{int(statePipe.Fd()), int(launcherJob.Handle())}
}

// executable: Windows runs a program by its name's extension, not by a mode
// bit (Go reports none): what PATHEXT lists, .exe by default.
func executable(path string, _ fs.FileInfo) bool {
	exts := os.Getenv("PATHEXT")
	if exts == "" {
		exts = ".COM;.EXE;.BAT;.CMD"
	}
	ext := filepath.Ext(path)
	for _, e := range strings.Split(exts, ";") {
		if e != "" && strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}
