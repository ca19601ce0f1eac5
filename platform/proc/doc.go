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
// It is the bottom layer: the OS primitives live here once (the subreaper,
// the Windows kill-on-close Job, the Linux cgroup v2 a backend's tree is
// kept in and the systemd user scope that can hold one, the TERM -> grace
// -> KILL Stopper and the Teardown of a whole tree that the shim, the
// reaper and the launcher's Tree share, tree pinning, the Ticker what runs
// at rest ticks on) and it imports nothing of this module.
package proc
