package delta

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"hermes-desktop/lockfile"
)

// ErrMismatch is the error for a result that is not what the signed
// manifest names.
var ErrMismatch = errors.New("delta: the result is not the release")

// Sum names bytes by their SHA-256 (lowercase hex) and length.
type Sum struct {
	SHA256 string
	Size   int64
}

// Reference is the file a patch starts from (an install's executable,
// symlinks followed) and its SHA-256, which a patch's from names. The
// digest is computed when asked for, streamed (the file is never held in
// memory for it), and kept while the file keeps its size and modification
// time: a client that checks a feed with patches every few hours does not
// read it again. A file rewritten in place with the same size and time
// only makes the rebuilt release fail the manifest's digest (ApplyFile).
type Reference struct {
	path  string
	mu    sync.Mutex // guards stamp and sum; held while hashing, so two callers hash once
	stamp [2]int64   // size and modification time (ns) of the file sum is of
	sum   string     // lowercase hex; "" until computed
}

// NewReference is the reference at path; nothing is read yet.
func NewReference(path string) *Reference { return &Reference{path: path} }

// Digest is the file's SHA-256 (lowercase hex), from the cache while the
// file keeps its size and time.
func (r *Reference) Digest() (string, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return "", fmt.Errorf("delta: the reference: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("delta: the reference: %w", err)
	}
	stamp := [2]int64{fi.Size(), fi.ModTime().UnixNano()}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sum != "" && r.stamp == stamp {
		return r.sum, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("delta: read %s: %w", r.path, err)
	}
	r.stamp, r.sum = stamp, hex.EncodeToString(h.Sum(nil))
	return r.sum, nil
}

// ApplyFile writes what the patch in the file patch makes of the file old
// (symlinks followed) to path (mode 0600), atomically (lockfile.WriteAtomic)
// once it is exactly want; on any error (ErrPatch, ErrTooBig, ErrMismatch,
// or the file system's) path is untouched and no temporary file is left.
// old is read whole, at most MaxView bytes (a reference larger than a view
// cannot be one).
func ApplyFile(path, old, patch string, want Sum) error {
	p, err := os.ReadFile(patch)
	if err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	o, err := readReference(old)
	if err != nil {
		return err
	}
	return lockfile.WriteAtomic(path, 0o600, func(w io.Writer) error {
		h := sha256.New()
		if err := Apply(&capWriter{w: io.MultiWriter(w, h), left: want.Size}, o, p, want.Size); err != nil {
			return err
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
			return fmt.Errorf("%w: it made sha256 %s, the manifest says %s", ErrMismatch, got, want.SHA256)
		}
		return nil
	})
}

// readReference reads the release a patch starts from: at most MaxView
// bytes, or an ErrTooBig error.
func readReference(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxView+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("delta: read %s: %w", path, err)
	case len(b) > MaxView:
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrTooBig, path, int64(MaxView))
	}
	return b, nil
}
