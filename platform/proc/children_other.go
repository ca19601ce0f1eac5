//go:build !linux

package proc

// pinByChildren has no fast path outside Linux.
func pinByChildren(int) ([]*Handle, bool) { return nil, false }

// descendantsByChildren has no fast path outside Linux.
func descendantsByChildren(int) ([]Process, bool) { return nil, false }

// pinPID pins pid through its identity as Lookup reads it.
func pinPID(pid int) (*Handle, error) {
	id, err := Lookup(pid)
	if err != nil {
		return nil, err
	}
	return Open(id)
}
