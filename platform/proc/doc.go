// Package proc identifies processes by PID and start marker, lists and walks
// the process table cheaply, and signals processes only after re-validating
// who they are.
//
// A PID alone names nothing durable: the kernel hands it out again once the
// process is reaped. Every decision to signal in hermes-desktop therefore goes
// through an Identity (PID + start marker, + boot id on Linux) and, where the
// OS offers one, a handle opened before the check (pidfd on Linux, a process
// handle on Windows) so the PID cannot be recycled between check and signal.
//
// It is in the bottom layer, platform/: the OS primitives live there once.
// This package holds the subreaper, the TERM -> grace -> KILL Stopper and
// the Teardown of a whole tree that the shim, the reaper and the launcher's
// Tree share, and tree pinning; the Linux cgroup v2 and the systemd user
// scope are platform/cgroup's, the Windows kill-on-close job
// platform/job's, the Ticker and a process's Usage platform/sampling's. It
// imports nothing of this module.
//
// Words, one meaning each across the module: to collect a child is to wait
// for its exit status (wait4; CollectOrphans is the one loop that collects
// what nobody else waits for); to reap is what the boot reaper does
// (backend/reap: find a dead session's leftover backends and stop them);
// a subreaper is the kernel's term for a process that inherits orphans.
package proc
