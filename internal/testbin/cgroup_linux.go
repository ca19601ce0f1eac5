package testbin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"path"
	"syscall"
	"testing"

	"hermes-desktop/internal/proc"
)

// Cgroup creates a cgroup v2 of the test's own, under this process's
// cgroup, and returns it; it skips the test (saying why) where cgroup v2
// is not writable. Whatever a test starts in it (StartIn, or a launcher
// with Launcher.Cgroup set) is killed at the end (only the test's own
// processes are ever in it: they are born inside), and the cgroup and
// everything below it are removed.
func Cgroup(t testing.TB) *proc.Cgroup {
	t.Helper()
	own, err := proc.OwnCgroup()
	if err == nil {
		err = proc.CgroupWritable(own)
	}
	if err != nil {
		t.Skipf("cgroup v2 not writable here: %v", err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	cg, err := proc.CreateCgroup(path.Join(own, "hermes-test-"+hex.EncodeToString(b[:])))
	if err != nil {
		t.Skipf("cgroup v2 not writable here: %v", err)
	}
	t.Cleanup(func() { RemoveCgroup(t, cg) })
	return cg
}

// RemoveCgroup kills what is left in a test's cgroup, waits until it is
// empty and removes it with everything below it.
func RemoveCgroup(t testing.TB, cg *proc.Cgroup) {
	if pids, _ := cg.Members(); len(pids) > 0 {
		t.Logf("killing what is left in the test's cgroup %s: %v", cg.Path(), pids)
		_ = cg.Kill()
	}
	ctx, cancel := context.WithTimeout(context.Background(), proc.CgroupKillWait)
	defer cancel()
	if err := cg.WaitEmpty(ctx); err != nil {
		t.Errorf("test cgroup: %v", err)
	}
	if err := cg.Remove(); err != nil {
		t.Errorf("test cgroup: %v", err)
	}
}

// StartIn starts cmd directly inside cg (it runs no instruction outside).
func StartIn(cmd *exec.Cmd, cg *proc.Cgroup) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	release, err := cg.SpawnAttr(cmd.SysProcAttr)
	if err != nil {
		return err
	}
	defer release()
	return cmd.Start()
}
