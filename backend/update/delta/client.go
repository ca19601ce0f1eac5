package delta

import (
	"context"
	"fmt"
	"io"
	"os"
)

// The client's side, for backend/update: which patch an install takes,
// and rebuilding the release from it.

// Source writes what an install of a release holds (its canonical bytes):
// what a patch starts from.
type Source = func(io.Writer) error

// FileSource is the Source of an install that is one file (symlinks
// followed).
func FileSource(path string) Source {
	return func(w io.Writer) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
}

// Choose is the patch of ps from what src holds, when one is smaller than
// full; nil when none is (a changed install, one older than the patches
// reach), or when src cannot be read (err says why).
func Choose(ps []Patch, src Source, full int64) (*Patch, error) {
	if len(ps) == 0 || src == nil {
		return nil, nil
	}
	_, sum, err := Read(src)
	if err != nil {
		return nil, fmt.Errorf("delta: read the installed release: %w", err)
	}
	return Pick(ps, sum.SHA256, full), nil
}

// Fetch downloads a file to path, checked against sha256 and size (a
// verified file already there is kept).
type Fetch func(ctx context.Context, url, sha256 string, size int64, path string) error

// Rebuild fetches p to file, applies it to what src holds and writes the
// result to out, checked against want (ApplyFile). file is removed once
// used: it rebuilt the release, or it cannot.
func Rebuild(ctx context.Context, fetch Fetch, p Patch, file string, src Source, out string, want Sum) error {
	if err := fetch(ctx, p.URL, p.SHA256, p.Size, file); err != nil {
		return err
	}
	defer os.Remove(file)
	patch, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	old, sum, err := Read(src)
	if err != nil {
		return fmt.Errorf("delta: read the installed release: %w", err)
	}
	if sum.SHA256 != p.From {
		return fmt.Errorf("delta: the install changed since the check (%s, the patch is from %s)", sum.SHA256, p.From)
	}
	return ApplyFile(out, old, patch, want)
}
