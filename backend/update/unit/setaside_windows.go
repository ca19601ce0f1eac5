package unit

import "os"

// setAside moves the entry at cur to aside: a rename. Windows can rename
// a running executable but never replace or delete it, so the incoming
// one can only take the name once the current one has left it; the two
// renames follow each other at once (the executable's is the last move).
func setAside(cur, aside string, _ bool) error {
	return os.Rename(cur, aside)
}
