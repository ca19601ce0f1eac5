//go:build !linux

package cgroup

import (
	"context"
	"syscall"
)

// Cgroup is Linux-only. Windows holds a tree in a kill-on-close job object
// instead (Job), which every descendant is born into and cannot leave;
// macOS has no kernel container for a process tree at all, so there the
// watchdog shim's process group and tree walk are the whole mechanism.
// Every function here reports ErrUnavailable.
type Cgroup struct{}

// Mount reports ErrUnavailable: no cgroups here.
func Mount() (string, error) { return "", ErrUnavailable }

// Own reports ErrUnavailable: no cgroups here.
func Own() (string, error) { return "", ErrUnavailable }

// Of reports ErrUnavailable: no cgroups here.
func Of(int) (string, error) { return "", ErrUnavailable }

// Writable reports ErrUnavailable: no cgroups here.
func Writable(string) error { return ErrUnavailable }

// Open reports ErrUnavailable: no cgroups here.
func Open(string) (*Cgroup, error) { return nil, ErrUnavailable }

// Create reports ErrUnavailable: no cgroups here.
func Create(string) (*Cgroup, error) { return nil, ErrUnavailable }

// Path returns "".
func (c *Cgroup) Path() string { return "" }

// Children reports ErrUnavailable.
func (c *Cgroup) Children() ([]string, error) { return nil, ErrUnavailable }

// Members reports ErrUnavailable.
func (c *Cgroup) Members() ([]int, error) { return nil, ErrUnavailable }

// Holds reports false.
func (c *Cgroup) Holds(int) bool { return false }

// Populated reports ErrUnavailable.
func (c *Cgroup) Populated() (bool, error) { return false, ErrUnavailable }

// WaitEmpty reports ErrUnavailable.
func (c *Cgroup) WaitEmpty(context.Context) error { return ErrUnavailable }

// Signal reports ErrUnavailable.
func (c *Cgroup) Signal(syscall.Signal) error { return ErrUnavailable }

// Kill reports ErrUnavailable.
func (c *Cgroup) Kill() error { return ErrUnavailable }

// KillExcept reports ErrUnavailable.
func (c *Cgroup) KillExcept(func(pid int) bool) ([]int, error) { return nil, ErrUnavailable }

// Join reports ErrUnavailable.
func (c *Cgroup) Join(int) error { return ErrUnavailable }

// SpawnAttr reports ErrUnavailable.
func (c *Cgroup) SpawnAttr(*syscall.SysProcAttr) (func(), error) { return nil, ErrUnavailable }

// Remove reports ErrUnavailable.
func (c *Cgroup) Remove() error { return ErrUnavailable }

// UserManager is Linux-only: there is no systemd elsewhere.
type UserManager struct{}

// ConnectUserManager reports ErrUnavailable.
func ConnectUserManager() (*UserManager, error) { return nil, ErrUnavailable }

// Close does nothing.
func (m *UserManager) Close() error { return nil }

// StartScope reports ErrUnavailable.
func (m *UserManager) StartScope(string, int) (string, error) { return "", ErrUnavailable }
