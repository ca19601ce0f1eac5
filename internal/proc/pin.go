package proc

// PinDescendants opens a handle on every live descendant of root. A handle
// is opened before the process is checked, and the check is that the
// process's parent is the tree member we found it under: so each handle is
// provably on a process of root's tree, and stays on it even if the PID is
// recycled later. Processes that exit during the walk are skipped.
//
// On Linux this reads only the tree (the kernel's children lists), which
// keeps a teardown fast; elsewhere it scans the table and checks identities.
func PinDescendants(root int) ([]*Handle, error) {
	if hs, ok := pinByChildren(root); ok {
		return hs, nil
	}
	t, err := Snapshot()
	if err != nil {
		return nil, err
	}
	var hs []*Handle
	for _, p := range t.Descendants(root) {
		if h, err := Open(p.Identity()); err == nil {
			h.pgid = p.PGID
			hs = append(hs, h)
		}
	}
	return hs, nil
}

// CloseAll closes every handle.
func CloseAll(hs []*Handle) {
	for _, h := range hs {
		h.Close()
	}
}
