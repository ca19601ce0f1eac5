//go:build unix

package watchdog

import (
	"log/slog"
	"os"
	"time"

	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// The shim's parts, for the remote watchdog (watchdog/remotewd), which
// runs the same tree, teardown and reaping as the shim behind another
// lifeline (an ssh channel and a heartbeat instead of a pipe from a local
// parent). Each part passes the hooks a fresh treeHold: on unix it carries
// nothing (the subreaper bit and wait4(-1) are the process's own).

// PrepareTree catches the teardown signals and makes this process the
// leader of its own group and a subreaper, as the shim starts; failures
// are logged, not fatal (the tree walk still holds the tree).
func PrepareTree(log *slog.Logger) chan os.Signal {
	signals := notifyShimSignals()
	if err := leadProcessGroup(); err != nil {
		log.Warn("cannot lead a process group", "err", err)
	}
	if err := containTree(&treeHold{}); err != nil {
		log.Warn("not a subreaper; orphaned descendants may escape", "err", err)
	}
	return signals
}

// RunTree is the shim's loop: it collects every child, tears the tree down
// when the backend exits, a teardown signal comes or parentGone speaks,
// and returns the backend's status once no child is left.
func RunTree(child proc.Identity, tree *cgroup.Cgroup, signals <-chan os.Signal, parentGone <-chan Reason, grace time.Duration, log *slog.Logger) int {
	return runShimLoop(&treeHold{}, child, tree, signals, parentGone, grace, log)
}

// RequestStop hands a stop request to RunTree's loop.
func RequestStop(signals chan<- os.Signal) { requestStop(signals) }

// MakeTreeCgroup creates the backend's cgroup name ("" for none) under
// this process's own; nil and why when it cannot.
func MakeTreeCgroup(name string, log *slog.Logger) (*cgroup.Cgroup, error) {
	return makeTreeCgroup(name, log)
}

// ReleaseTreeCgroup removes the backend's cgroup once the tree is gone.
func ReleaseTreeCgroup(tree *cgroup.Cgroup, log *slog.Logger) { releaseTreeCgroup(tree, log) }

// StartProcessIn starts a process inside tree (Linux), or plainly.
func StartProcessIn(tree *cgroup.Cgroup, exe string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	return startProcessIn(tree, exe, argv, attr)
}

// ChildEnv is this process's environment with the Hermes parent contract
// naming self (and nonce, random when "").
func ChildEnv(self proc.Identity, nonce string) ([]string, error) { return childEnv(self, nonce) }

// ExecExitCode maps a failure to start a command to the shell's codes.
func ExecExitCode(err error) int { return execExitCode(err) }
