package update

import (
	"errors"
	"io/fs"
	"os"
)

// swapFile: Windows cannot replace a running executable but can rename
// it, so the current file moves aside to .old first, then the staged file
// takes its name; if that fails, .old moves back. An older .old still in
// use is renamed aside instead of removed (the next Stage removes it).
func swapFile(staged, path string) error {
	old := path + OldSuffix
	if err := os.Remove(old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(old, old+deletedInfix+randomSuffix()); err != nil {
			return err
		}
	}
	return renameSwap(staged, path, old)
}

// restoreFile moves the failed version aside (it may still be running, so
// it cannot be removed yet) and .old back.
func restoreFile(path string) error {
	bad, err := restoreOld(path)
	if err != nil {
		return err
	}
	_ = os.Remove(bad) // fails while it still runs; harmless
	return nil
}
