package proc

import (
	"bytes"
	"os/exec"
	"sync"
	"time"
)

// owned is the registry of the children this process started itself and
// whose Wait someone here owns (an exec.Cmd's Wait, a Handle that notices
// the exit first and reaps later). CollectOrphans collects every other child that
// exits and leaves these alone, so their owners keep their exit status.
//
// mu is held across a start and its registration (Spawning), and by each
// CollectOrphans pass: a pass never sees a child of ours that has been started
// but not registered yet, however soon it exits.
var owned = struct {
	mu   sync.Mutex
	pids map[int]*ownedChild
}{pids: map[int]*ownedChild{}}

// ownedChild is one registration. Its address is its token: a late
// release never removes a later child's registration of a reused PID.
type ownedChild struct{ pid int }

// Spawning marks the start of a child whose Wait the caller owns. It holds
// the registry until the returned function is called with the child's PID
// (0 when the start failed), which must follow the start at once, on the
// same goroutine; that function returns the one to call after the child has
// been waited for (a no-op for a failed start).
func Spawning() (started func(pid int) (waited func())) {
	owned.mu.Lock()
	return func(pid int) func() {
		defer owned.mu.Unlock()
		if pid <= 0 {
			return func() {}
		}
		c := &ownedChild{pid: pid}
		owned.pids[pid] = c
		return func() {
			owned.mu.Lock()
			defer owned.mu.Unlock()
			if owned.pids[pid] == c {
				delete(owned.pids, pid)
			}
		}
	}
}

// StartChild is cmd.Start with the child registered as owned (see
// Spawning). The caller owns cmd.Wait and calls waited after it returns.
func StartChild(cmd *exec.Cmd) (waited func(), err error) {
	started := Spawning()
	err = cmd.Start()
	pid := 0
	if err == nil {
		pid = cmd.Process.Pid
	}
	return started(pid), err
}

// RunChild is cmd.Run for a registered child (see StartChild).
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
