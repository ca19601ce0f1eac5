package proc

import (
	"bytes"
	"os/exec"
	"sync"
	"time"
)

// owned is the registry of the children this process started itself and
// whose Wait someone here owns (an exec.Cmd's Wait, a Handle that notices
// the exit first and collects later). CollectOrphans collects every other
// child that exits and leaves these alone, so their owners keep their exit
// status; the reclaimer never takes them for orphans. mu is held across a
// start and its registration (StartChild) and by each pass (WithOwned).
var owned = struct {
	mu   sync.Mutex
	pids map[int]*ownedChild
}{pids: map[int]*ownedChild{}}

// ownedChild is one registration. Its address is its token: a late
// release never removes a later child's registration of a reused PID.
type ownedChild struct{ pid int }

// WithOwned runs f with the registry held: no child can be started or
// released meanwhile, so a child of ours that f finds in the process table
// is registered (owned reports true) or is nobody's.
func WithOwned(f func(owned func(pid int) bool)) {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	f(isOwned)
}

// isOwned reports whether pid is a registered child; owned.mu is held.
func isOwned(pid int) bool { return owned.pids[pid] != nil }

// StartChild is cmd.Start with the child registered as owned: the one way
// this module starts a child it waits for (e2e's structure test holds every
// other package to it). The registry is held from before the start until
// the child is registered, so no CollectOrphans or reclaim pass sees it
// unregistered, however soon it exits. The caller owns cmd.Wait and calls
// waited after it returns (a no-op for a failed start).
func StartChild(cmd *exec.Cmd) (waited func(), err error) {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return func() {}, err
	}
	pid := cmd.Process.Pid
	c := &ownedChild{pid: pid}
	owned.pids[pid] = c
	return func() {
		owned.mu.Lock()
		defer owned.mu.Unlock()
		if owned.pids[pid] == c {
			delete(owned.pids, pid)
		}
	}, nil
}

// RunChild is cmd.Run for a registered child.
func RunChild(cmd *exec.Cmd) error {
	waited, err := StartChild(cmd)
	if err != nil {
		return err
	}
	defer waited()
	return cmd.Wait()
}

// OutputChild is cmd.Output for a registered child: its standard output,
// and its standard error in the *exec.ExitError when cmd.Stderr is nil.
func OutputChild(cmd *exec.Cmd) ([]byte, error) {
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	captured := cmd.Stderr == nil
	if captured {
		cmd.Stderr = &stderr
	}
	err := RunChild(cmd)
	if ee, ok := err.(*exec.ExitError); ok && captured {
		ee.Stderr = stderr.Bytes()
	}
	return out.Bytes(), err
}

// CombinedOutputChild is cmd.CombinedOutput for a registered child.
func CombinedOutputChild(cmd *exec.Cmd) ([]byte, error) {
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := RunChild(cmd)
	return b.Bytes(), err
}

// collectorWake pokes CollectOrphans (WakeCollector).
var collectorWake = make(chan struct{}, 1)

// WakeCollector asks CollectOrphans for a pass now and a pass every second for
// the next CollectorWatch: for when orphans may be on their way (a child of
// ours died, an opener handed off to a browser). Passes do not rely on
// SIGCHLD alone, which a GUI toolkit in this process may take for itself
// (GLib installs its own handler for its child watches). It never blocks;
// outside Linux nothing listens.
func WakeCollector() {
	select {
	case collectorWake <- struct{}{}:
	default:
	}
}

// CollectorWatch is how long CollectOrphans keeps looking every second after
// WakeCollector.
const CollectorWatch = time.Minute
