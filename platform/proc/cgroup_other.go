//go:build !linux

package proc

import (
	"context"
	"syscall"
)

// Cgroup is Linux-only. Windows holds a tree in a kill-on-close job object
// instead (Job), which every descendant is born into and cannot leave;
// macOS has no kernel container for a process tree at all, so there the
// watchdog shim's process group and tree walk are the whole mechanism.
// Every function here reports ErrNoCgroup.
type Cgroup struct{}

// CgroupMount reports ErrNoCgroup: no cgroups here.
func CgroupMount() (string, error) { return "", ErrNoCgroup }

// OwnCgroup reports ErrNoCgroup: no cgroups here.
func OwnCgroup() (string, error) { return "", ErrNoCgroup }

// CgroupOf reports ErrNoCgroup: no cgroups here.
func CgroupOf(int) (string, error) { return "", ErrNoCgroup }

// CgroupWritable reports ErrNoCgroup: no cgroups here.
func CgroupWritable(string) error { return ErrNoCgroup }

// OpenCgroup reports ErrNoCgroup: no cgroups here.
func OpenCgroup(string) (*Cgroup, error) { return nil, ErrNoCgroup }

// CreateCgroup reports ErrNoCgroup: no cgroups here.
func CreateCgroup(string) (*Cgroup, error) { return nil, ErrNoCgroup }

// Path returns "".
func (c *Cgroup) Path() string { return "" }

// Children reports ErrNoCgroup.
func (c *Cgroup) Children() ([]string, error) { return nil, ErrNoCgroup }

// Members reports ErrNoCgroup.
func (c *Cgroup) Members() ([]int, error) { return nil, ErrNoCgroup }

// Holds reports false.
func (c *Cgroup) Holds(int) bool { return false }

// Populated reports ErrNoCgroup.
func (c *Cgroup) Populated() (bool, error) { return false, ErrNoCgroup }

// WaitEmpty reports ErrNoCgroup.
func (c *Cgroup) WaitEmpty(context.Context) error { return ErrNoCgroup }

// Signal reports ErrNoCgroup.
func (c *Cgroup) Signal(syscall.Signal) error { return ErrNoCgroup }

// Kill reports ErrNoCgroup.
func (c *Cgroup) Kill() error { return ErrNoCgroup }

// KillExcept reports ErrNoCgroup.
func (c *Cgroup) KillExcept(func(pid int) bool) ([]int, error) { return nil, ErrNoCgroup }

// Join reports ErrNoCgroup.
func (c *Cgroup) Join(int) error { return ErrNoCgroup }

// SpawnAttr reports ErrNoCgroup.
func (c *Cgroup) SpawnAttr(*syscall.SysProcAttr) (func(), error) { return nil, ErrNoCgroup }

// Remove reports ErrNoCgroup.
func (c *Cgroup) Remove() error { return ErrNoCgroup }

// UserManager is Linux-only: there is no systemd elsewhere.
type UserManager struct{}

// ConnectUserManager reports ErrNoCgroup.
func ConnectUserManager() (*UserManager, error) { return nil, ErrNoCgroup }

// Close does nothing.
func (m *UserManager) Close() error { return nil }

// StartScope reports ErrNoCgroup.
func (m *UserManager) StartScope(string, int) (string, error) { return "", ErrNoCgroup }
