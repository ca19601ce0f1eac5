package update

import (
	"errors"
	"io/fs"
	"os"
)

// swapFile: Windows cannot replace a running executable but can rename
// it, so the current file moves aside to .old first, then the staged file
// takes its name; if that fails, .old moves back. An older .old still in
// use is renamed aside instead of removed.
func swapFile(staged, path string) error {
	old := path + OldSuffix
	if err := os.Remove(old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(old, old+".del-"+randomSuffix()); err != nil {
			return err
		}
	}
	if err := os.Rename(path, old); err != nil {
		return err
	}
	if err := os.Rename(staged, path); err != nil {
		if rerr := os.Rename(old, path); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	return nil
}

// restoreFile moves the failed version aside (it may still be running, so
// it cannot be removed yet) and .old back.
func restoreFile(path string) error {
	bad := path + ".failed-" + randomSuffix()
	if err := os.Rename(path, bad); err != nil {
		return err
	}
	if err := os.Rename(path+OldSuffix, path); err != nil {
		_ = os.Rename(bad, path)
		return err
	}
	_ = os.Remove(bad) // fails while it still runs; harmless
	return nil
}
