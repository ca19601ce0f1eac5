package testbin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"path"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/platform/cgroup"
)

// Cgroup creates a cgroup v2 of the test's own, under this process's
// cgroup, and returns it; it skips the test (saying why) where cgroup v2
// is not writable. Whatever a test starts in it (StartIn, or a launcher
// with Launcher.Cgroup set) is killed at the end (only the test's own
// processes are ever in it: they are born inside), and the cgroup and
// everything below it are removed.
func Cgroup(t testing.TB) *cgroup.Cgroup {
	t.Helper()
	cg, err := NewCgroup()
	if err != nil {
		t.Skipf("cgroup v2 not writable here: %v", err)
	}
	t.Cleanup(func() { RemoveCgroup(t, cg) })
	return cg
}

// tryCgroup is Cgroup for tests that run either way: nil (and no skip)
// where cgroup v2 is not writable.
func tryCgroup(t testing.TB) *cgroup.Cgroup {
	cg, err := NewCgroup()
	if err != nil {
		return nil
	}
	t.Cleanup(func() { RemoveCgroup(t, cg) })
	return cg
}

// NewCgroup creates a cgroup v2 named hermes-test-<random> under this
// process's own cgroup (benchmarks use it; tests use Cgroup). The caller
// removes it.
func NewCgroup() (*cgroup.Cgroup, error) {
	own, err := cgroup.Own()
	if err == nil {
		err = cgroup.Writable(own)
	}
	if err != nil {
		return nil, err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return cgroup.Create(path.Join(own, "hermes-test-"+hex.EncodeToString(b[:])))
}

// RemoveCgroup kills what is left in a test's cgroup (a leak, reported
// like a tagged process left behind), waits until it is empty and removes
// it with everything below it.
func RemoveCgroup(t testing.TB, cg *cgroup.Cgroup) {
	// A tree that was just told to stop (or a handoff's successor, which is
	// not the test's child) may take a moment to be gone; a leak does not
	// go away by waiting.
	settle, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	err := cg.WaitEmpty(settle)
	cancel()
	if pids, _ := cg.Members(); err != nil && len(pids) > 0 {
		if !t.Failed() {
			t.Errorf("processes left in the test's cgroup %s (killed now): %v", cg.Path(), pids)
		}
		_ = cg.Kill()
	}
	ctx, cancel := context.WithTimeout(context.Background(), cgroup.KillWait)
	defer cancel()
	if err := cg.WaitEmpty(ctx); err != nil {
		t.Errorf("test cgroup: %v", err)
	}
	if err := cg.Remove(); err != nil {
		t.Errorf("test cgroup: %v", err)
	}
}

// StartIn starts cmd directly inside cg (it runs no instruction outside).
func StartIn(cmd *exec.Cmd, cg *cgroup.Cgroup) error {
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
