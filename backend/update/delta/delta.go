// Package delta makes and applies the patches that update an install
// from one release to the next without downloading the whole: a zstd
// patch (patch.go: the old release as a raw dictionary, as `zstd
// --patch-from`) between views of the two releases in which every gzip'd
// file is expanded (view.go), so that a one-line change costs about what
// it changed, not the size of every compressed file after it.
//
// The bytes a patch starts from and ends with are the caller's: an
// install's executable (backend/update). The patch is signed through the
// manifest that names it; what Apply rebuilds is checked against the
// manifest's digest (ApplyFile) before anything is installed.
package delta

import (
	"bytes"
	"fmt"
	"io"
)

// Make returns the patch that turns old into new (whole releases, as the
// client will hold them).
func Make(old, new []byte) ([]byte, error) {
	ov, err := Expand(old, false)
	if err != nil {
		return nil, err
	}
	nv, err := Expand(new, true)
	if err != nil {
		return nil, err
	}
	p, err := MakePatch(ov, nv)
	if err != nil {
		return nil, err
	}
	// What the client will do, here, so that a patch that cannot give new
	// back is never published.
	var b bytes.Buffer
	if err := Apply(&b, old, p, int64(len(new))); err != nil {
		return nil, fmt.Errorf("delta: the patch does not apply: %w", err)
	}
	if !bytes.Equal(b.Bytes(), new) {
		return nil, fmt.Errorf("%w: the patch does not give the new release back", ErrPatch)
	}
	return p, nil
}

// Apply writes to w what patch makes of old: exactly size bytes (the
// manifest's), or an error, after which what w received is to be thrown
// away. The view is bounded by MaxView and the result by size.
func Apply(w io.Writer, old, patch []byte, size int64) error {
	ov, err := Expand(old, false)
	if err != nil {
		return err
	}
	view, err := ApplyPatch(ov, patch, MaxView)
	if err != nil {
		return err
	}
	ov = nil // the reference is done with: let it go before the result grows
	return Contract(w, view, size)
}
