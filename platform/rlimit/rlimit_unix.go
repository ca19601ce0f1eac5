//go:build unix

// Package rlimit reads and sets this process's open-file limit: the one
// it was started with, which the Go runtime hides, and the one its
// children inherit.
package rlimit

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"hermes-desktop/platform/proc"
)

// InheritedNofileSoft returns the soft RLIMIT_NOFILE this process was
// started with. Go raises its own soft limit to the hard one at start-up
// (and restores the original in every child it execs), so the original is
// not what getrlimit says any more: it is read back from a child shell.
func InheritedNofileSoft() (uint64, error) {
	out, err := proc.OutputChild(exec.Command("/bin/sh", "-c", "ulimit -Sn"))
	if err != nil {
		return 0, fmt.Errorf("rlimit: ask a shell for the inherited open-file limit: %w", err)
	}
	v := strings.TrimSpace(string(out))
	if v == "unlimited" {
		return unix.RLIM_INFINITY, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("rlimit: inherited open-file limit %q: %w", v, err)
	}
	return n, nil
}

// SetNofileSoft sets this process's soft RLIMIT_NOFILE, keeping the hard
// limit, through syscall.Setrlimit: that is also what tells Go to let
// children inherit the value instead of restoring the original.
func SetNofileSoft(soft uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("rlimit: getrlimit: %w", err)
	}
	lim.Cur = soft
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("rlimit: setrlimit nofile %d: %w", soft, err)
	}
	return nil
}
