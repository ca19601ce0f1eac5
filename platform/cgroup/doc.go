// Package cgroup keeps a process tree in a Linux cgroup v2 (find its
// members, signal them, kill them in one write, wait until it is empty)
// and asks the systemd user manager for a scope that can hold one
// (UserManager). cgroup.go says why a cgroup holds a tree whatever it
// does; other systems report ErrUnavailable.
package cgroup
