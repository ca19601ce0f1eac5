// Package bundle is the macOS update's artifact: the .app bundle as a
// .tar.gz, extracted through an os.Root of the staging directory, and the
// swap of the bundle directory with the one it replaces.
package bundle

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrFormat means an archive is not one .app directory of regular files,
// directories and links that stay inside it.
var ErrFormat = errors.New("bundle: not a bundle archive")

// MaxSize bounds what a bundle archive may unpack to.
const MaxSize = 2 << 30

// Extract unpacks a macOS bundle artifact (a .tar.gz holding one
// top-level X.app directory) into dst, which becomes the bundle: X.app's
// contents land directly in dst. Entries outside X.app, absolute or ".."
// paths, links that leave the bundle and special files are refused; and
// every entry is written through an os.Root of dst, so that no chain of
// links the archive makes (a -> ., a/b -> .., then b/FILE: each link
// harmless by its text alone) can lead a write outside it.
func Extract(archive, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer f.Close()
	root, err := os.OpenRoot(dst)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer root.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%w: bundle archive: %w", ErrFormat, err)
	}
	tr := tar.NewReader(zr)
	var top string
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: bundle archive: %w", ErrFormat, err)
		}
		rel, err := entryPath(h.Name, &top)
		if err != nil || rel == "" {
			if err != nil {
				return err
			}
			continue // the X.app directory itself
		}
		if total += h.Size; total > MaxSize {
			return fmt.Errorf("%w: bundle archive unpacks to over %d bytes", ErrFormat, int64(MaxSize))
		}
		if err := extractEntry(tr, h, root, rel); err != nil {
			return err
		}
	}
	if top == "" {
		return fmt.Errorf("%w: bundle archive holds no .app directory", ErrFormat)
	}
	return nil
}

// entryPath checks an entry's name and returns its path inside the
// bundle ("" for the bundle directory itself).
func entryPath(name string, top *string) (string, error) {
	clean := path.Clean(strings.TrimPrefix(name, "./"))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%w: bundle archive entry %q leaves the bundle", ErrFormat, name)
	}
	first, rest, _ := strings.Cut(clean, "/")
	if !strings.HasSuffix(first, ".app") || (*top != "" && first != *top) {
		return "", fmt.Errorf("%w: bundle archive entry %q is not inside one .app directory", ErrFormat, name)
	}
	*top = first
	return rest, nil
}

// extractEntry writes one entry, through root: a directory, a regular
// file or a link that stays inside the bundle.
func extractEntry(r io.Reader, h *tar.Header, root *os.Root, rel string) error {
	mode := os.FileMode(h.Mode) & 0o755
	target := filepath.FromSlash(rel)
	switch h.Typeflag {
	case tar.TypeDir:
		return wrapWrite(root.MkdirAll(target, mode|0o700))
	case tar.TypeReg:
		if err := root.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return wrapWrite(err)
		}
		out, err := root.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode|0o600)
		if err != nil {
			return wrapWrite(err)
		}
		_, err = io.Copy(out, io.LimitReader(r, h.Size))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return wrapWrite(err)
	case tar.TypeSymlink:
		dest := path.Join(path.Dir(rel), h.Linkname)
		if path.IsAbs(h.Linkname) || dest == ".." || strings.HasPrefix(dest, "../") {
			return fmt.Errorf("%w: bundle archive link %q -> %q leaves the bundle", ErrFormat, rel, h.Linkname)
		}
		if err := root.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return wrapWrite(err)
		}
		return wrapWrite(root.Symlink(h.Linkname, target))
	}
	return fmt.Errorf("%w: bundle archive entry %q is not a file, directory or link", ErrFormat, rel)
}

func wrapWrite(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("bundle: unpack: %w", err)
}

// Swap puts the staged bundle in place of the one at path, which moves to
// old (an older old is removed first); if that fails, the current one
// moves back.
func Swap(staged, path, old string) error {
	if err := os.RemoveAll(old); err != nil {
		return err
	}
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

// Restore puts old back in place of the bundle at path (the rollback of a
// Swap): the failed one moves to failed, then is removed.
func Restore(path, old, failed string) error {
	if err := os.Rename(path, failed); err != nil {
		return err
	}
	if err := os.Rename(old, path); err != nil {
		_ = os.Rename(failed, path)
		return err
	}
	return os.RemoveAll(failed)
}
