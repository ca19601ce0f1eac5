package watchdog

import (
	"errors"
	"fmt"
	"os"
	"path"
	"syscall"

	"hermes-desktop/platform/cgroup"
)

// openTreeCgroup creates the backend's cgroup, name, under the shim's own
// cgroup as it is now, after the start barrier: where the launcher started
// us, or the systemd scope it moved us into meanwhile.
func openTreeCgroup(name string) (*cgroup.Cgroup, error) {
	own, err := cgroup.Own()
	if err != nil {
		return nil, fmt.Errorf("watchdog: own cgroup: %w", err)
	}
	cg, err := cgroup.Create(path.Join(own, name))
	if err != nil {
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	return cg, nil
}

// startProcessIn starts the backend directly inside cg (clone3 with
// CLONE_INTO_CGROUP, Linux 5.7): it never runs an instruction outside.
// Where the kernel has no clone3, the shim joins cg for the moment of the
// fork instead, so the child is still born inside, then goes back.
func startProcessIn(cg *cgroup.Cgroup, exe string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	given := attr.Sys // the caller's (the remote backend's namespaces): kept
	sys := &syscall.SysProcAttr{}
	if given != nil {
		copied := *given
		sys = &copied
	}
	release, err := cg.SpawnAttr(sys)
	if err != nil {
		return nil, err
	}
	attr.Sys = sys
	p, err := os.StartProcess(exe, argv, attr)
	release()
	attr.Sys = given
	if errors.Is(err, syscall.ENOSYS) {
		return startJoined(cg, exe, argv, attr)
	}
	return p, err
}

// startJoined forks the backend from inside cg: the shim joins it, starts
// the child, and moves back to the cgroup it came from, so that "populated
// 0" still means the backend's tree is gone.
func startJoined(cg *cgroup.Cgroup, exe string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	own, err := cgroup.Own()
	if err != nil {
		return nil, err
	}
	back, err := cgroup.Open(own)
	if err != nil {
		return nil, err
	}
	if err := cg.Join(os.Getpid()); err != nil {
		return nil, err
	}
	p, err := os.StartProcess(exe, argv, attr)
	if jerr := back.Join(os.Getpid()); jerr != nil {
		return p, errors.Join(err, fmt.Errorf("watchdog: leave the backend's cgroup: %w", jerr))
	}
	return p, err
}
