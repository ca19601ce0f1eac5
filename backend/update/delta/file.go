package delta

import (
	"bytes"
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

// Source is an installed release as a patch starts from it: the bytes it
// writes, and a cheap stamp that changes whenever they may have.
type Source interface {
	// Stamp says the state of what CopyTo would write (sizes and
	// modification times): the same stamp, the same bytes.
	Stamp() (string, error)
	CopyTo(w io.Writer) error
}

// File is the Source of one file (an install's executable, symlinks
// followed).
type File string

// Stamp is the file's size and modification time.
func (f File) Stamp() (string, error) {
	fi, err := os.Stat(string(f))
	if err != nil {
		return "", fmt.Errorf("delta: the reference: %w", err)
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano()), nil
}

// CopyTo writes the file's bytes.
func (f File) CopyTo(w io.Writer) error {
	r, err := os.Open(string(f))
	if err != nil {
		return fmt.Errorf("delta: the reference: %w", err)
	}
	defer r.Close()
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("delta: read %s: %w", f, err)
	}
	return nil
}

// Reference is the release a patch starts from and its SHA-256, which a
// patch's from names. The digest is computed when asked for, streamed
// (never held in memory for it), and kept while the source keeps its
// stamp: a client that checks a feed with patches every few hours does
// not read the install again. What is read for a patch (Read) is hashed
// again by the caller, and the rebuilt release must match the manifest
// (ApplyFile), so a stale stamp costs a fallback, never a wrong install.
type Reference struct {
	src   Source
	mu    sync.Mutex // guards stamp and sum; held while hashing, so two callers hash once
	stamp string     // src's stamp when sum was computed
	sum   string     // lowercase hex; "" until computed
}

// NewReference is the reference to src; nothing is read yet.
func NewReference(src Source) *Reference { return &Reference{src: src} }

// Digest is the source's SHA-256 (lowercase hex), from the cache while it
// keeps its stamp.
func (r *Reference) Digest() (string, error) {
	stamp, err := r.src.Stamp()
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sum != "" && r.stamp == stamp {
		return r.sum, nil
	}
	h := sha256.New()
	if err := r.src.CopyTo(h); err != nil {
		return "", err
	}
	r.stamp, r.sum = stamp, hex.EncodeToString(h.Sum(nil))
	return r.sum, nil
}

// Read is the source's bytes, at most MaxView of them (a larger release
// cannot be a view: ErrTooBig).
func (r *Reference) Read() ([]byte, error) {
	var b bytes.Buffer
	err := r.src.CopyTo(&capWriter{w: &b, left: MaxView})
	if errors.Is(err, ErrTooBig) {
		return nil, fmt.Errorf("%w: the installed release is over %d bytes", ErrTooBig, int64(MaxView))
	}
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Digest is the SHA-256 (lowercase hex) of b.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ApplyFile writes what the patch in the file patch makes of old to path
// (mode 0600), atomically (lockfile.WriteAtomic) once it is exactly want;
// on any error (ErrPatch, ErrTooBig, ErrMismatch, or the file system's)
// path is untouched and no temporary file is left.
func ApplyFile(path string, old []byte, patch string, want Sum) error {
	p, err := os.ReadFile(patch)
	if err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	return lockfile.WriteAtomic(path, 0o600, func(w io.Writer) error {
		h := sha256.New()
		if err := Apply(&capWriter{w: io.MultiWriter(w, h), left: want.Size}, old, p, want.Size); err != nil {
			return err
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
			return fmt.Errorf("%w: it made sha256 %s, the manifest says %s", ErrMismatch, got, want.SHA256)
		}
		return nil
	})
}
