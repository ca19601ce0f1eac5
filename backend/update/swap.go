package update

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// OldSuffix names the previous version, kept next to the installed one
// (one kept: each update replaces it).
const OldSuffix = ".old"

// OldPath is where t's previous version is kept.
func OldPath(t Target) string { return t.Path + OldSuffix }

// What a swap or a restore cannot remove at once because it still runs
// (Windows refuses to delete a running executable) moves aside under one of
// these names, <target>.failed-<random> or <target>.old.del-<random>, and
// the next Stage removes it (removeLeftovers).
const (
	failedInfix  = ".failed-"
	deletedInfix = ".del-"
)

// leftoverPrefixes are the name prefixes, in t's directory, of what
// earlier swaps and restores of t left behind.
func leftoverPrefixes(t Target) []string {
	base := filepath.Base(t.Path)
	return []string{base + failedInfix, base + OldSuffix + deletedInfix}
}

// Swap puts the staged copy in place of t and keeps the current one as
// OldPath(t). On any failure the current one stays (or is put back) in
// place and the staged copy is removed; the error wraps ErrSwap.
func Swap(staged string, t Target) error {
	var err error
	if t.Bundle {
		err = swapDir(staged, t.Path)
	} else {
		err = swapFile(staged, t.Path)
	}
	if err != nil {
		os.RemoveAll(staged) // our own staged copy, never the target
		return fmt.Errorf("%w: %s: %w", ErrSwap, t.Path, err)
	}
	syncDir(filepath.Dir(t.Path))
	return nil
}

// Restore puts OldPath(t) back in place of t: the rollback of a Swap. The
// failed version's file is removed (or, on Windows, where it may still be
// running, left under a temporary name for the next Stage to remove).
func Restore(t Target) error {
	var err error
	if t.Bundle {
		err = restoreDir(t.Path)
	} else {
		err = restoreFile(t.Path)
	}
	if err != nil {
		return fmt.Errorf("update: restore %s from %s: %w", t.Path, OldPath(t), err)
	}
	syncDir(filepath.Dir(t.Path))
	return nil
}

// swapDir swaps a bundle directory: the current one moves to .old (an
// older .old is removed first), the staged one takes its name; if that
// fails, the current one moves back.
func swapDir(staged, path string) error {
	old := path + OldSuffix
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	return renameSwap(staged, path, old)
}

// renameSwap moves path to old, then staged to path; if the second rename
// fails, old moves back.
func renameSwap(staged, path, old string) error {
	if err := os.Rename(path, old); err != nil {
		return err
	}
	if err := os.Rename(staged, path); err != nil {
		if rerr := os.Rename(old, path); rerr != nil {
			return fmt.Errorf("%w; and putting the current one back failed: %w", err, rerr)
		}
		return err
	}
	return nil
}

// restoreDir moves the failed bundle aside and .old back.
func restoreDir(path string) error {
	bad, err := restoreOld(path)
	if err != nil {
		return err
	}
	return os.RemoveAll(bad)
}

// restoreOld moves the failed version aside and .old back; it returns where
// the failed one went.
func restoreOld(path string) (string, error) {
	bad := path + failedInfix + randomSuffix()
	if err := os.Rename(path, bad); err != nil {
		return "", err
	}
	if err := os.Rename(path+OldSuffix, path); err != nil {
		_ = os.Rename(bad, path)
		return "", err
	}
	return bad, nil
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// syncDir makes renames durable; best effort.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
