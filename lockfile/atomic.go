package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrTooLarge means a file exceeds the size limit for its kind.
var ErrTooLarge = errors.New("lockfile: file too large")

// WriteJSON atomically replaces path with v encoded as indented JSON, mode
// 0600: write to a temp file in the same directory, fsync, rename, fsync the
// directory. A crash leaves either the old file or the new one, never half.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("lockfile: encode %s: %w", filepath.Base(path), err)
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// WriteFileAtomic writes data to path the way WriteJSON does.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, 0o600, func(w io.Writer) error {
		if _, err := w.Write(data); err != nil {
			return fmt.Errorf("lockfile: write %s: %w", path, err)
		}
		return nil
	})
}

// WriteAtomic replaces path with what write writes, mode perm: a temporary
// file in the same directory (".<name>.tmp-*"), fsync, rename over path,
// fsync the directory. A crash leaves the old file or the new one, never
// half of either. When write fails (a digest that does not match, say),
// path is untouched, the temporary file is removed and write's error is
// returned as it is. On Windows the rename replaces path as os.Rename does
// there (MoveFileEx with MOVEFILE_REPLACE_EXISTING).
func WriteAtomic(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("lockfile: create temp for %s: %w", path, err)
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName) // our own half-written temp file, never a record
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("lockfile: chmod temp for %s: %w", path, err)
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("lockfile: fsync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("lockfile: close %s: %w", path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("lockfile: rename into %s: %w", path, err)
	}
	ok = true
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable. Best effort: some filesystems (and
// Windows) cannot fsync a directory, and the rename itself already happened.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// ReadLimited reads a private regular file of at most limit bytes. Symlinks,
// special files, files of other users or writable by others, and oversized
// files are refused with an error that says which.
func ReadLimited(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("lockfile: %w", err)
	}
	if err := checkFile(path, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("lockfile: open %s: %w", path, err)
	}
	defer f.Close()
	// Re-check through the open file: the path may have been swapped
	// between Lstat and open.
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) {
		return nil, fmt.Errorf("%w: %s changed while being opened", ErrUnsafePath, path)
	}
	return readAtMost(f, path, limit)
}

// ReadForeign reads a file another program owns (an SSH lock, a gateway PID
// file): symlinks and special files are refused and the size is limited,
// but ownership and mode are the other program's business.
func ReadForeign(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("lockfile: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnsafePath, path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("lockfile: open %s: %w", path, err)
	}
	defer f.Close()
	return readAtMost(f, path, limit)
}

func readAtMost(r io.Reader, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("lockfile: read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, path, limit)
	}
	return data, nil
}

// DecodeStrict decodes exactly one JSON value into v, rejecting unknown
// fields and trailing data.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON object")
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}
