package e2e

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/cgroup"
)

// The systemd path, against a real systemd user manager: where the
// launcher may not write a cgroup itself, the user manager makes a
// transient scope (Delegate=yes) around the shim, and the backend's cgroup
// lives inside it. The manager runs for the test only: `systemd --user` in
// a private mount namespace (a tmpfs on /run, so it finds
// /run/systemd/system and its own /run/user/0, and nothing of the host's
// /run changes), with its root in a cgroup of the test's own. Its bus is
// reached from outside the namespace through /proc/PID/root.

// userManagerScript runs in the private mount namespace.
const userManagerScript = `set -e
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system /run/user/0
chmod 700 /run/user/0
export XDG_RUNTIME_DIR=/run/user/0
exec "$SYSTEMD" --user --log-target=null
`

// startUserManager starts the test's systemd user manager in cg and
// returns its session bus address. It skips where that cannot be done.
func startUserManager(t *testing.T, cg *cgroup.Cgroup) string {
	t.Helper()
	systemd := "/lib/systemd/systemd"
	if _, err := os.Stat(systemd); err != nil || os.Geteuid() != 0 {
		t.Skipf("no systemd user manager can be started here (systemd at %s: %v; root: %v)", systemd, err, os.Geteuid() == 0)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skipf("no unshare(1) for a private mount namespace: %v", err)
	}
	cmd := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", userManagerScript)
	cmd.Env = []string{"SYSTEMD=" + systemd, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	must(t, testbin.StartIn(cmd, cg))
	t.Cleanup(func() { // ours: the manager and all it started are in cg
		_ = cg.Kill()
		_ = cmd.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cg.WaitEmpty(ctx)
		_ = cg.Remove()
	})
	bus := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "root/run/user/0/bus")
	if !waitfor.Try(15*time.Second, func() bool {
		fi, err := os.Stat(bus)
		return err == nil && fi.Mode()&os.ModeSocket != 0
	}) {
		t.Skipf("the systemd user manager did not come up (no %s)", bus)
	}
	addr := "unix:path=" + bus
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	m, err := cgroup.ConnectUserManager()
	if err != nil {
		t.Skipf("the systemd user manager does not answer: %v", err)
	}
	m.Close()
	return addr
}

func TestSystemdScopeHoldsTheTree(t *testing.T) {
	parent := testbin.Cgroup(t)
	mgr, err := cgroup.Create(path.Join(parent.Path(), "manager"))
	must(t, err)
	startUserManager(t, mgr)
	home := t.TempDir()
	l := testbin.Base(t, filepath.Join(home, "state"), filepath.Join(home, "hermes"), testbin.Tag(t))
	if l.Cgroup, err = cgroup.Create(path.Join(parent.Path(), "launcher")); err != nil {
		t.Fatal(err)
	}
	label := "scope-" + testbin.NewTag()
	args := []string{"--grace", "1s", "--containment", "systemd-scope", "--backend-cmd", daemonizing(label)}

	l1 := l.StartAnother(args...)
	l1.WaitReady(1, readyWait)
	b := status(t, l1).Backends[0]
	scopeOf := func(group string) string { return path.Dir(group) }
	if b.Containment != model.ContainmentSystemdScope || !strings.HasSuffix(scopeOf(b.Cgroup), ".scope") ||
		!strings.HasPrefix(b.Cgroup, mgr.Path()+"/") {
		t.Fatalf("containment %q in %q (%s), want a cgroup in a systemd scope under %s", b.Containment, b.Cgroup, b.ContainmentReason, mgr.Path())
	}
	if cg, _ := cgroup.Of(b.PID); cg != b.Cgroup {
		t.Errorf("backend %d is in %s, want %s", b.PID, cg, b.Cgroup)
	}
	if cg, _ := cgroup.Of(b.ShimPID); cg != scopeOf(b.Cgroup) {
		t.Errorf("shim %d is in %s, want the scope %s", b.ShimPID, cg, scopeOf(b.Cgroup))
	}
	waitLabelled(t, label, nil, 2)
	daemons := labelled(label)
	killLauncherAndShim(t, l1, b.ShimPID)
	if _, err := l1.WaitExit(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if len(stillRunning(daemons)) == 0 {
		t.Fatal("no daemon outlived the crash: the test proves nothing")
	}

	l2 := l.StartAnother(args...)
	l2.WaitReady(1, readyWait)
	if left := stillRunning(daemons); len(left) > 0 {
		t.Errorf("daemons alive after the next boot: %v", left)
	}
	checkCgroupReaped(t, 1, status(t, l2).BootReap, b.Cgroup)
	t.Logf("the next boot: %s", cgroupDetail(status(t, l2).BootReap, b.Cgroup))
	b2 := status(t, l2).Backends[0]
	stopAndCheck(t, l2)
	// Empty, the scopes go: systemd collects a transient scope once its
	// last process is gone.
	for _, scope := range []string{scopeOf(b.Cgroup), scopeOf(b2.Cgroup)} {
		waitGone(t, scope)
	}
}

// waitGone waits for a cgroup to disappear.
func waitGone(t *testing.T, group string) {
	t.Helper()
	if !waitfor.Try(10*time.Second, func() bool { _, err := cgroup.Open(group); return err != nil }) {
		t.Errorf("cgroup %s still there", group)
	}
}
