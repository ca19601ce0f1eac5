// Signalling a cgroup's members: through pidfds, or frozen and killed whole.

package cgroup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupFreezeWait bounds the wait for cgroup.freeze to take effect.
const cgroupFreezeWait = time.Second

// Signal sends sig to every process in c and below it, each through a
// pidfd checked to be in c after it was opened (see signalMember).
// Processes that exit meanwhile are skipped.
func (c *Cgroup) Signal(sig syscall.Signal) error {
	pids, err := c.Members()
	var errs []error
	for _, pid := range pids {
		if err := c.signalMember(pid, sig); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(append([]error{err}, errs...)...)
}

// signalMember signals pid if it is in c. The pidfd is opened before the
// membership check, so the signal reaches the process that was checked:
// if the PID had been reused before the open, the stranger it names now
// was born outside c (members are born inside, and only a write to
// cgroup.procs moves a process), so the check fails and nothing is sent.
func (c *Cgroup) signalMember(pid int, sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == unix.ESRCH:
		return nil
	case err == unix.ENOSYS: // Linux < 5.3: check, then kill; the window is one syscall
		if c.Holds(pid) {
			if err := unix.Kill(pid, sig); err != nil && err != unix.ESRCH {
				return fmt.Errorf("cgroup: signal %v to %d in %s: %w", sig, pid, c.path, err)
			}
		}
		return nil
	case err != nil:
		return fmt.Errorf("cgroup: pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	if !c.Holds(pid) {
		return nil
	}
	if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil && err != unix.ESRCH {
		return fmt.Errorf("cgroup: signal %v to %d in %s: %w", sig, pid, c.path, err)
	}
	return nil
}

// Kill SIGKILLs every process in c and below it at once: a write to
// cgroup.kill (Linux 5.14), which also catches a process forked while the
// kill runs. Older kernels get KillExcept's freeze and per-process kill.
// It returns without waiting: WaitEmpty tells when they are gone.
func (c *Cgroup) Kill() error {
	err := c.write("cgroup.kill", "1")
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, serr := os.Stat(c.dir); errors.Is(serr, fs.ErrNotExist) {
		return nil // the cgroup itself is gone: nothing to kill
	}
	_, err = c.KillExcept(nil)
	return err
}

// KillExcept freezes c (no member can fork or exit meanwhile), lists its
// members, SIGKILLs those spare (nil: none) does not keep, and thaws it.
// With nothing spared it uses cgroup.kill where the kernel has it. It
// returns the members it spared. Without cgroup.freeze (Linux < 5.2) the
// kill is repeated a few times to catch children forked meanwhile.
func (c *Cgroup) KillExcept(spare func(pid int) bool) ([]int, error) {
	asked, err := c.freeze()
	if asked { // thawed again even if freezing did not complete in time
		defer func() { _ = c.write("cgroup.freeze", "0") }()
	}
	frozen := err == nil
	rounds := 1
	if !frozen {
		rounds = 5
	}
	var spared []int
	for round := 0; round < rounds; round++ {
		pids, err := c.Members()
		if err != nil {
			return spared, err
		}
		var doomed []int
		spared = spared[:0]
		for _, pid := range pids {
			if spare != nil && spare(pid) {
				spared = append(spared, pid)
			} else {
				doomed = append(doomed, pid)
			}
		}
		if len(doomed) == 0 {
			return spared, nil
		}
		if len(spared) == 0 && c.write("cgroup.kill", "1") == nil {
			return nil, nil
		}
		var errs []error
		for _, pid := range doomed {
			errs = append(errs, c.signalMember(pid, unix.SIGKILL))
		}
		if err := errors.Join(errs...); err != nil {
			return spared, err
		}
	}
	return spared, nil
}

// freeze writes cgroup.freeze (asked) and waits until the kernel reports
// "frozen 1" (err nil). Freezing is asynchronous: it can be asked for and
// not yet be done.
func (c *Cgroup) freeze() (asked bool, err error) {
	if err := c.write("cgroup.freeze", "1"); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cgroupFreezeWait)
	defer cancel()
	return true, c.waitEvent(ctx, "frozen", "1")
}
