//go:build unix && !linux

package netns

import (
	"errors"
	"syscall"
)

// errNoNamespaces is why a host without network namespaces runs its
// backends in the host's network.
var errNoNamespaces = errors.New("this system has no network namespaces")

// Attr refuses: only Linux has network namespaces (macOS hosts
// run their backends in the host's network).
func Attr() (*syscall.SysProcAttr, error) { return nil, errNoNamespaces }

// relayAttr is never used without namespaces.
func relayAttr() *syscall.SysProcAttr { return nil }

// bringLoopbackUp refuses, as Attr does.
func bringLoopbackUp() error { return errNoNamespaces }

// dropCapabilities has nothing to drop.
func dropCapabilities() error { return nil }

// ownNetns refuses, as Attr does.
func ownNetns(int) error { return errNoNamespaces }
