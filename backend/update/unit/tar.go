package unit

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The canonical tar, defined once for the release tool and the client:
//
//   - the unit's entries only (Names, and everything under cores/),
//     sorted by their slash path, relative to the install directory;
//   - regular files and directories only (a directory's name ends in "/");
//   - mode 0755 for the executable and the directories, 0644 otherwise;
//     uid and gid 0, no user or group names, mtime 0 (the epoch);
//   - the ustar format, as Go's archive/tar writes it, ended by its two
//     zero blocks.
//
// So the same files give the same bytes, whoever writes them.

// entry is one file or directory of a unit.
type entry struct {
	rel   string // slash path, without a trailing slash
	dir   bool
	size  int64
	mtime int64 // ns; not in the tar, only in the Tree's stamp
}

// header is an entry's canonical tar header.
func (e entry) header() *tar.Header {
	h := &tar.Header{Name: e.rel, Mode: mode(e.rel, e.dir), ModTime: time.Unix(0, 0), Format: tar.FormatUSTAR}
	if e.dir {
		h.Typeflag, h.Name = tar.TypeDir, e.rel+"/"
	} else {
		h.Typeflag, h.Size = tar.TypeReg, e.size
	}
	return h
}

// WriteTar writes the canonical tar of the unit in root, an install
// directory or a build output laid out as one (the executable, cores/,
// the license files beside it). Other files in root are left out; a link
// or a special file where the unit has an entry, no executable or both,
// or a unit over MaxSize is an ErrFormat error.
func WriteTar(w io.Writer, root string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	defer r.Close()
	entries, err := list(r)
	if err != nil {
		return fmt.Errorf("%w (in %s)", err, root)
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		if err := tw.WriteHeader(e.header()); err != nil {
			return fmt.Errorf("unit: write %s: %w", e.rel, err)
		}
		if !e.dir {
			if err := copyFile(tw, r, e); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	return nil
}

// copyFile writes the file's bytes: exactly its listed size, or an error
// (a file that changed while the tar was written).
func copyFile(w io.Writer, r *os.Root, e entry) error {
	f, err := r.Open(filepath.FromSlash(e.rel))
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(f, e.size+1))
	if err == nil && n != e.size {
		err = fmt.Errorf("it changed while being read (%d bytes, listed as %d)", n, e.size)
	}
	if err != nil {
		return fmt.Errorf("unit: read %s: %w", e.rel, err)
	}
	return nil
}

// list finds the unit's entries under r, checked and sorted.
func list(r *os.Root) ([]entry, error) {
	var entries []entry
	exes := 0
	for _, name := range names {
		fi, err := r.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("unit: %w", err)
		}
		if IsExe(name) {
			exes++
		}
		if !fi.IsDir() {
			e, err := fileEntry(name, fi)
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
			continue
		}
		if err := fs.WalkDir(r.FS(), name, func(p string, d fs.DirEntry, err error) error {
			return walkEntry(&entries, p, d, err)
		}); err != nil {
			return nil, err
		}
	}
	if exes != 1 {
		return nil, fmt.Errorf("%w: it holds %d of %s and %s, want one", ErrFormat, exes, ExeUnix, ExeWindows)
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.rel, b.rel) })
	var total int64
	for _, e := range entries {
		if total += e.size; total > MaxSize {
			return nil, fmt.Errorf("%w: over %d bytes", ErrFormat, int64(MaxSize))
		}
	}
	return entries, nil
}

// walkEntry adds one entry found under a unit directory.
func walkEntry(entries *[]entry, p string, d fs.DirEntry, err error) error {
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	if d.IsDir() {
		if err := checkPath(p, true); err != nil {
			return err
		}
		*entries = append(*entries, entry{rel: p, dir: true})
		return nil
	}
	fi, err := d.Info()
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	e, err := fileEntry(p, fi)
	if err == nil {
		*entries = append(*entries, e)
	}
	return err
}

// fileEntry checks a file found at rel: regular, and named by the rules.
func fileEntry(rel string, fi fs.FileInfo) (entry, error) {
	if !fi.Mode().IsRegular() {
		return entry{}, fmt.Errorf("%w: %s is a %v, not a regular file or directory", ErrFormat, rel, fi.Mode().Type())
	}
	if err := checkPath(rel, false); err != nil {
		return entry{}, err
	}
	return entry{rel: rel, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, nil
}

// Sum names a unit tar: its SHA-256 (lowercase hex) and its length.
type Sum struct {
	SHA256 string
	Size   int64
}

// String is "sha256:<hex> (<size> bytes)".
func (s Sum) String() string { return fmt.Sprintf("sha256:%s (%d bytes)", s.SHA256, s.Size) }

// Digest is the SHA-256 and the length of the unit tar of root
// (WriteTar), computed without writing it anywhere.
func Digest(root string) (Sum, error) {
	h := newHasher()
	if err := WriteTar(h, root); err != nil {
		return Sum{}, err
	}
	return h.sum(), nil
}

// hasher hashes and counts what is written to it.
type hasher struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func newHasher() *hasher { return &hasher{h: sha256.New()} }

func (h *hasher) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	return h.h.Write(p)
}

func (h *hasher) sum() Sum { return Sum{SHA256: hex.EncodeToString(h.h.Sum(nil)), Size: h.n} }
