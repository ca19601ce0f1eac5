package netns

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Attr starts a process in a new user and network namespace, the
// user's own uid and gid mapped to themselves (the backend sees who it
// is), and CAP_NET_ADMIN kept across its exec (an ambient capability of
// that namespace only) so that it can bring the loopback up: a non-root
// uid loses the namespace's capabilities at exec otherwise.
func Attr() (*syscall.SysProcAttr, error) {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// An unprivileged gid map needs setgroups denied (user_namespaces(7)).
		GidMappingsEnableSetgroups: false,
		AmbientCaps:                []uintptr{unix.CAP_NET_ADMIN},
	}, nil
}

// relayAttr starts the relay as a sibling of the held start (CLONE_PARENT):
// the watchdog's own child, which it collects and tears down, and never a
// child of the backend the held start becomes.
func relayAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_PARENT}
}

// bringLoopbackUp sets lo up in this process's network namespace (a new
// one starts with it down: 127.0.0.1 cannot even be bound).
func bringLoopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring the namespace's loopback up: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring the namespace's loopback up: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the namespace's loopback up: read its flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the namespace's loopback up: %w", err)
	}
	return nil
}

// dropCapabilities clears the calling thread's capabilities, ambient,
// inheritable, permitted and effective: what it starts or execs next (the
// relay, the backend) gets none, even from a binary with file
// capabilities' inheritable bits. The caller has locked its thread:
// capabilities are a thread's.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("drop the namespace's capability: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("drop the namespace's capabilities: %w", err)
	}
	return nil
}

// ownNetns checks that pid's network namespace is not ours: the held
// start asked for one of its own, and a backend that were in ours would
// be open to every account while the card said it is not.
func ownNetns(pid int) error {
	ours, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return fmt.Errorf("read our network namespace: %w", err)
	}
	its, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return fmt.Errorf("read the backend's network namespace: %w", err)
	}
	if its == ours {
		return fmt.Errorf("the backend %d is in the host's network namespace", pid)
	}
	return nil
}
