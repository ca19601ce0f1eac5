package update

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"hermes-desktop/backend/update/bundle"
	"hermes-desktop/backend/update/unit"
)

// OldSuffix names the previous version, kept next to the installed one
// (one kept: each update replaces it).
const OldSuffix = ".old"

// OldPath is where t's previous version is kept: for a unit, a directory
// beside the executable holding the previous unit (hermes-desktop.old/
// with hermes-desktop, cores/, ...); for a bundle, the previous bundle.
func OldPath(t Target) string { return t.Path + OldSuffix }

// What a swap or a restore cannot remove at once because it still runs
// (Windows refuses to delete a running executable) stays under one of
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

// Swap puts the staged copy (Stage's) in place of t and keeps the current
// one as OldPath(t); v names the two versions (a unit's journal records
// them for a recovery to say). On any failure the current one stays (or
// is put back) in place and the staged copy is removed; the error wraps
// ErrSwap.
func Swap(staged string, t Target, v Versions) error {
	var err error
	switch {
	case t.Unit:
		err = swapUnit(staged, t, v)
	case t.Bundle:
		err = bundle.Swap(staged, t.Path, OldPath(t))
	default:
		err = errors.New("not a unit or a bundle")
	}
	if err != nil {
		os.RemoveAll(staged) // our own staged copy, never the target
		return fmt.Errorf("%w: %s: %w", ErrSwap, t.Path, err)
	}
	syncDir(t.Dir())
	return nil
}

// Restore puts OldPath(t) back in place of t: the rollback of a Swap
// (v.From the failed version, v.To the one restored). The failed version
// is removed (or, on Windows, where it may still be running, left under a
// temporary name for the next Stage to remove).
func Restore(t Target, v Versions) error {
	var err error
	switch {
	case t.Unit:
		err = unit.Restore(t.Dir(), filepath.Base(OldPath(t)), filepath.Base(t.Path)+failedInfix+randomSuffix(), v)
	case t.Bundle:
		err = bundle.Restore(t.Path, OldPath(t), t.Path+failedInfix+randomSuffix())
	default:
		err = errors.New("not a unit or a bundle")
	}
	if err != nil {
		return fmt.Errorf("update: restore %s from %s: %w", t.Path, OldPath(t), err)
	}
	syncDir(t.Dir())
	return nil
}

// Recover finishes a swap or a restore of t's unit that a crash cut
// short (unit.Recover): nil when there was none. Not a unit: nothing to do.
func Recover(t Target) (*unit.Recovery, error) {
	if !t.Unit {
		return nil, nil
	}
	return unit.Recover(t.Dir())
}

// swapUnit empties OldPath(t) for the unit in place, then replaces that
// unit with the staged one, journaled (unit.Swap).
func swapUnit(staged string, t Target, v Versions) error {
	old := OldPath(t)
	if err := unit.Discard(old, old+deletedInfix+randomSuffix()); err != nil {
		return err
	}
	if err := os.Mkdir(old, 0o755); err != nil {
		return err
	}
	err := unit.Swap(t.Dir(), filepath.Base(staged), filepath.Base(old), v)
	if err != nil {
		os.Remove(old) // still empty unless putting back failed: then it stays for the next start
	}
	return err
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
