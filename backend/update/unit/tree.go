package unit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Tree is the unit of an install directory as a patch starts from it
// (a delta.Source): its canonical tar, and a stamp of its entries.
type Tree string

// Stamp hashes the unit's entries with their sizes and modification
// times: any file added, removed, resized or rewritten changes it.
func (t Tree) Stamp() (string, error) {
	r, err := os.OpenRoot(string(t))
	if err != nil {
		return "", fmt.Errorf("unit: %w", err)
	}
	defer r.Close()
	entries, err := list(r)
	if err != nil {
		return "", fmt.Errorf("%w (in %s)", err, string(t))
	}
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%q %t %d %d\n", e.rel, e.dir, e.size, e.mtime)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// CopyTo writes the unit's canonical tar (WriteTar).
func (t Tree) CopyTo(w io.Writer) error { return WriteTar(w, string(t)) }
