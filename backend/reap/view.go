package reap

import (
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// view is everything the reaper reads about live processes and owner locks.
// The rules in decide.go look at the system only through it, so a test can
// hand them a made-up process table (decide_test.go) and check each rule
// without starting a process. Acting (handles, signals, tree walks in
// kill.go) goes to the OS directly: a view never changes anything.
//
// Implementations must be safe for concurrent use: scan reads command lines
// from several goroutines.
type view interface {
	// PIDs lists every process visible to us.
	PIDs() ([]int, error)
	// Stat reads one row of the process table; proc.ErrNotFound when the
	// PID names no process.
	Stat(pid int) (proc.Process, error)
	// Cmdline reads a process's argv.
	Cmdline(pid int) ([]string, error)
	// Getenv reads one variable of a process's environment; ok is false
	// when it is unset.
	Getenv(pid int, key string) (value string, ok bool, err error)
	// OwnerLockHeld reports whether the launcher with this owner nonce
	// still holds its owner lock.
	OwnerLockHeld(nonce string) (bool, error)
	// Running reports whether id names a process that has not exited.
	Running(id proc.Identity) (bool, error)
	// ServiceUnit names the service unit pid runs in; "" when none.
	ServiceUnit(pid int) string
}

// osView is the real view: the process table, /proc (or its equivalent)
// and the owner locks under stateDir.
type osView struct {
	stateDir string
}

var _ view = osView{}

func (osView) PIDs() ([]int, error)                   { return proc.PIDs() }
func (osView) Stat(pid int) (proc.Process, error)     { return proc.Stat(pid) }
func (osView) Cmdline(pid int) ([]string, error)      { return proc.Cmdline(pid) }
func (osView) Running(id proc.Identity) (bool, error) { return proc.Running(id) }
func (osView) ServiceUnit(pid int) string             { return serviceUnit(pid) }

func (osView) Getenv(pid int, key string) (string, bool, error) {
	return proc.Getenv(pid, key)
}

func (v osView) OwnerLockHeld(nonce string) (bool, error) {
	return lockfile.OwnerLockHeld(v.stateDir, nonce)
}
