package delta

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrMismatch is the error for a result that is not what the signed
// manifest names.
var ErrMismatch = errors.New("delta: the result is not the release")

// Sum names bytes by their SHA-256 (lowercase hex) and length.
type Sum struct {
	SHA256 string
	Size   int64
}

// Read returns what write writes (at most MaxView bytes: a reference
// larger than a view cannot be one) and its Sum.
func Read(write func(io.Writer) error) ([]byte, Sum, error) {
	var b bytes.Buffer
	if err := write(&capWriter{w: &b, left: MaxView}); err != nil {
		return nil, Sum{}, err
	}
	h := sha256.Sum256(b.Bytes())
	return b.Bytes(), Sum{SHA256: hex.EncodeToString(h[:]), Size: int64(b.Len())}, nil
}

// ApplyFile writes what patch makes of old to path (mode 0600), under a
// temporary name renamed once it is exactly want; on any error (ErrPatch,
// ErrTooBig, ErrMismatch, or the file system's) nothing is left.
func ApplyFile(path string, old, patch []byte, want Sum) error {
	tmp := path + ".patched"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	h := sha256.New()
	cw := &capWriter{w: io.MultiWriter(f, h), left: want.Size}
	err = Apply(cw, old, patch, want.Size)
	if got := hex.EncodeToString(h.Sum(nil)); err == nil && got != want.SHA256 {
		err = fmt.Errorf("%w: it made sha256 %s, the manifest says %s", ErrMismatch, got, want.SHA256)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp) // ours, and wrong or half written
		return err
	}
	return nil
}
