// Package proc identifies processes by PID and start marker, lists and walks
// the process table cheaply, and signals processes only after re-validating
// who they are.
//
// A PID alone names nothing durable: the kernel hands it out again once the
// process is collected. Every signal here goes through an Identity (PID +
// start marker, + boot id on Linux) and, where the OS has one, a handle
// opened before the check (pidfd, a Windows process handle).
//
// It is in the bottom layer, platform/. It holds the subreaper; the one
// TERM -> grace -> KILL, Teardown, that the shim, the boot reaper, the
// remote watchdog, the launcher and the Stopper run; tree pinning; and the
// one registry of the children we wait for (StartChild). It imports
// nothing of this module.
//
// Words, one meaning each across the module: to collect a child is to wait
// for its exit status (wait4; CollectOrphans is the one loop that collects
// what nobody else waits for); to reap is what the boot reaper does
// (backend/reap: find a dead session's leftover backends and stop them);
// a subreaper is the kernel's term for a process that inherits orphans.
package proc
