package unit

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Extract reads a unit tar from r into dst, an existing empty directory,
// through an os.Root of dst: no entry, whatever its name, can land outside
// it. Only a canonical tar is taken (the layout WriteTar writes: sorted,
// regular files and directories, canonical modes and owners, one
// executable, within MaxSize); anything else is an ErrFormat error, with
// what dst holds by then left for the caller to remove. The Sum is that of
// every byte read from r, trailing bytes included, for the caller to
// compare with the one it expects.
func Extract(r io.Reader, dst string) (Sum, error) {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return Sum{}, fmt.Errorf("unit: %w", err)
	}
	defer root.Close()
	h := newHasher()
	src := &capped{r: io.TeeReader(r, h), left: MaxSize}
	x := extractor{root: root, dirs: map[string]bool{}}
	tr := tar.NewReader(src)
	for {
		hd, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Sum{}, fmt.Errorf("%w: %w", ErrFormat, err)
		}
		if err := x.entry(hd, tr); err != nil {
			return Sum{}, err
		}
	}
	if x.exes != 1 {
		return Sum{}, fmt.Errorf("%w: it holds %d executables, want one", ErrFormat, x.exes)
	}
	// Whatever follows the end of the archive is hashed too: the digest is
	// of the whole stream, as the release tool computed it.
	if _, err := io.Copy(io.Discard, src); err != nil {
		return Sum{}, err
	}
	return h.sum(), nil
}

// extractor is one Extract's progress: the directories made and the
// executables seen so far, and the last path, which the next must follow.
type extractor struct {
	root *os.Root
	dirs map[string]bool
	last string
	exes int
}

// entry checks one header against the canonical form and writes it.
func (x *extractor) entry(h *tar.Header, r io.Reader) error {
	rel, dir, err := x.check(h)
	if err != nil {
		return err
	}
	x.last = rel
	name := filepath.FromSlash(rel)
	if dir {
		x.dirs[rel] = true
		if err := x.root.Mkdir(name, 0o755); err != nil {
			return fmt.Errorf("unit: extract: %w", err)
		}
		return nil
	}
	if IsExe(rel) {
		x.exes++
	}
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(mode(rel, false)))
	if err != nil {
		return fmt.Errorf("unit: extract: %w", err)
	}
	_, err = io.CopyN(f, r, h.Size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unit: extract %s: %w", rel, err)
	}
	return nil
}

// check returns a header's path and kind, or why it is not canonical.
func (x *extractor) check(h *tar.Header) (rel string, dir bool, err error) {
	switch h.Typeflag {
	case tar.TypeDir:
		rel, dir = strings.TrimSuffix(h.Name, "/"), true
		if rel == h.Name {
			return "", false, fmt.Errorf("%w: directory %q has no trailing slash", ErrFormat, h.Name)
		}
	case tar.TypeReg:
		rel = h.Name
	default:
		return "", false, fmt.Errorf("%w: %q is of type %q: a unit holds regular files and directories only", ErrFormat, h.Name, h.Typeflag)
	}
	if err := checkPath(rel, dir); err != nil {
		return "", false, err
	}
	switch {
	case rel <= x.last:
		return "", false, fmt.Errorf("%w: %q comes after %q: entries are sorted, each once", ErrFormat, rel, x.last)
	case parentOf(rel) != "" && !x.dirs[parentOf(rel)]:
		return "", false, fmt.Errorf("%w: %q comes before its directory", ErrFormat, rel)
	case h.Mode != mode(rel, dir) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "":
		return "", false, fmt.Errorf("%w: %q has mode %o, owner %d:%d (%q:%q); want %o, 0:0 and no names", ErrFormat, rel, h.Mode, h.Uid, h.Gid, h.Uname, h.Gname, mode(rel, dir))
	case h.ModTime.Unix() != 0 || h.Linkname != "" || len(h.PAXRecords) > 0:
		return "", false, fmt.Errorf("%w: %q has a time, a link name or extended records", ErrFormat, rel)
	case h.Size < 0 || (dir && h.Size != 0):
		return "", false, fmt.Errorf("%w: %q has size %d", ErrFormat, rel, h.Size)
	}
	return rel, dir, nil
}

// capped reads at most left bytes from r; one more is an error.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if _, err := io.ReadFull(c.r, one[:]); err != nil {
			return 0, err // io.EOF: the stream ended within the bound
		}
		return 0, fmt.Errorf("%w: over %d bytes", ErrFormat, int64(MaxSize))
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
