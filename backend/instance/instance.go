// Package instance is one run of a backend on this machine: the process
// the launcher starts (the watchdog shim, or the backend itself without
// it) and the tree under it; the Hermes environment it is given (nonce,
// parent marker, session token for desktop-owned kinds), its output lines,
// readiness (ready line or file, then the health check behind Hermes' auth
// gate) and its teardown (TERM, grace, KILL of the whole tree). It is the
// local run.Process, a peer of backend/remote's; a Supervisor owns each
// instance and is the only one to act on it.
package instance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/reclaim"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/logs"
	"hermes-desktop/platform/proc"
)

// Instance is one run of a backend: the process we started (the watchdog
// shim, or the backend itself when the shim is off), the tree under it,
// and the goroutines that read its output and wait for it. Its parts,
// each with a job of its own: the leader, the link to its shim (shim.go),
// what holds its tree (contain.go), its output and readiness (output.go)
// and its record (process.go).
//
// Goroutines: two output readers (end at EOF, or when the waiter closes the
// pipes after the tree is gone), the shim's report reader (ends at the
// report or EOF) and one waiter (ends when the leader has been collected;
// it closes exited). All are owned by the instance.
type Instance struct {
	spec  *runspec.Spec
	nonce string
	argv  []string // what was executed
	// token is the session token the backend was given (desktop-owned
	// kinds only): sent on health checks, shown only when the user asks
	// for the connection details, never logged.
	token     string
	log       *logs.Log
	exe       ExeStamp           // the backend executable as it was on disk at the start
	reclaimer *reclaim.Reclaimer // nil when nothing reclaims orphans

	leader leader      // the process we started
	shim   shimLink    // the shim and what it reports of the backend
	cont   containment // what holds the tree; fixed at spawn, but for the shim's report
	out    output      // the output, and the port it announces
	rec    recordState // owned by the instance's owner (its Supervisor's goroutine)

	// jobKiller is an OS mechanism that can kill the whole tree at once (a
	// kill-on-close job object on Windows); nil where the OS has none.
	jobKiller jobKiller

	mu        sync.Mutex // guards collected and tree; held through a teardown
	collected bool       // the leader has been collected: nothing is left to end
	tree      *tree

	exited   chan struct{}
	status   run.ExitStatus // valid once exited is closed
	detached atomic.Bool    // handed over to another launcher (update handoff)
}

// leader is the process we started: the shim, or the backend itself.
type leader struct {
	id     proc.Identity
	handle *proc.Handle
	cmd    *exec.Cmd // nil for an instance adopted from a previous launcher
	// waited drops cmd's registration with proc.CollectOrphans once cmd.Wait
	// has returned (proc.StartChild); set with cmd.
	waited func()
}

// collect waits for our child, the only waiter of it, and says how it
// ended; an adopted leader is not our child: its status is unknown.
func (l *leader) collect() run.ExitStatus {
	if l.cmd == nil {
		return run.ExitStatus{Code: -1, Unknown: true}
	}
	_ = l.cmd.Wait()
	l.waited()
	return run.StatusOf(l.cmd.ProcessState)
}

// jobKiller kills a whole backend tree through an OS facility (not to be
// confused with the leak guard, which only samples and warns).
type jobKiller interface {
	kill()
	release()
	// dup is a copy of the job's handle, which the caller owns and closes
	// (a handoff passes it to a successor); it fails once release has run.
	// Called under Instance.mu, as release is.
	dup() (uintptr, error)
}

// watch sets up what follows the started tree and starts the goroutines
// the instance owns: the shim's report reader, the output readers and the
// waiter.
func (i *Instance) watch() {
	pid := i.leader.id.PID
	i.tree = newTree(i.leader.id, GroupOf(pid))
	var err error
	if i.jobKiller, err = newJobKiller(pid); err != nil {
		i.log.Add("launcher", "warning: "+err.Error())
	}
	i.cont.enterScope(pid, i.log) // before any goroutine of ours reads the cgroup
	if i.shim.on() {
		go i.readShimReport()
	} else {
		i.shim.backend = i.leader.id
		close(i.shim.known)
	}
	i.out.start()
	go i.wait()
}

// wait owns the leader's exit: it notices the exit without collecting it
// (the zombie keeps the process group id pinned), clears the rest of the
// tree, and only then collects the leader.
func (i *Instance) wait() {
	i.leader.handle.Wait(context.Background())
	if i.detached.Load() {
		// Handed over to a new launcher: its tree is not ours to end. Our
		// child is still ours to collect.
		i.leader.collect()
		i.leader.handle.Close()
		close(i.exited)
		return
	}
	i.teardown(i.spec.Grace)
	i.mu.Lock()
	i.status = i.leader.collect()
	i.collected = true
	if i.reclaimer != nil {
		i.reclaimer.ChildExited()
	}
	i.tree.close()
	if i.jobKiller != nil {
		i.jobKiller.release()
	}
	i.mu.Unlock()
	i.leader.handle.Close()
	i.cont.removeCgroup(i.log)
	i.shim.close() // only now: an open lifeline is what keeps the shim's tree alive
	i.out.drain()
	os.Remove(i.out.readyFile) // our own scratch file, not a record
	close(i.exited)
}

// Stop tears the instance down and waits until the leader is collected.
// It is idempotent. Before Release, the lifeline is closed first: a shim
// still at its start barrier exits at once.
func (i *Instance) Stop() error {
	if !i.shim.released {
		i.shim.close()
	}
	i.teardown(i.spec.Grace)
	select {
	case <-i.exited:
		return nil
	case <-time.After(run.ExitWait):
		return fmt.Errorf("backend %s: leader %s did not exit after SIGKILL", i.spec.Name, i.leader.id)
	}
}

// Detach hands the instance over to a new launcher, which has its own
// copies of the lifeline and output pipes: ours are closed, our readers end,
// and the waiter will only collect, never tear down.
func (i *Instance) Detach() {
	i.detached.Store(true)
	i.shim.close()
	i.out.close()
}
