//go:build !linux

package proc

// childrenOf has no fast path outside Linux; callers scan the table.
func childrenOf(int) ([]int, bool) { return nil, false }

// pinByChildren has no fast path outside Linux.
func pinByChildren(int) ([]*Handle, bool) { return nil, false }
