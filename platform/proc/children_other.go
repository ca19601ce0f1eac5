//go:build !linux

package proc

// pinByChildren has no fast path outside Linux.
func pinByChildren(int) ([]*Handle, bool) { return nil, false }

// descendantsByChildren has no fast path outside Linux.
func descendantsByChildren(int) ([]Process, bool) { return nil, false }
