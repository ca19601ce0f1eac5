package proc

import "errors"

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

// PinTree pins root's whole tree: every descendant (PinDescendants) and,
// when root leads a process group, every member of that group that is not
// one already (a process may join the group with setpgid without
// descending from root). Root itself is never among the handles, and
// neither is a process for which skip (when non-nil) returns true. While
// root lives its group id cannot be recycled, so the group's members are
// as much root's as its descendants are.
func PinTree(root int, skip func(pid int) bool) ([]*Handle, error) {
	hs, err := PinDescendants(root)
	seen := map[int]bool{root: true}
	kept := hs[:0]
	for _, h := range hs {
		pid := h.Identity().PID
		if seen[pid] || (skip != nil && skip(pid)) {
			h.Close()
			continue
		}
		seen[pid] = true
		kept = append(kept, h)
	}
	table, terr := Snapshot()
	if terr != nil {
		return kept, errors.Join(err, terr)
	}
	if leader, ok := table.Find(root); ok && leader.PGID == root {
		for _, m := range table.Group(root) {
			if seen[m.PID] || (skip != nil && skip(m.PID)) {
				continue
			}
			if h, err := Open(m.Identity()); err == nil {
				h.pgid = m.PGID
				seen[m.PID] = true
				kept = append(kept, h)
			}
		}
	}
	return kept, err
}
