package unit

import (
	"errors"
	"fmt"
	"io"
	"os"

	"hermes-desktop/backend/update/transfer"

	"github.com/klauspost/compress/zstd"
)

// maxWindow bounds the zstd window a decoder accepts, and with it the
// memory an artifact can make the client use: Compress's best level uses
// 8 MiB; a little room above that.
const maxWindow = 64 << 20

// Compress writes the full update artifact of the unit in root: its
// canonical tar (WriteTar), compressed with zstd at its best level. It
// returns the tar's Sum, which the manifest records as unit_sha256 and
// unit_size.
func Compress(w io.Writer, root string) (Sum, error) {
	enc, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		return Sum{}, fmt.Errorf("unit: %w", err)
	}
	h := newHasher()
	if err := WriteTar(io.MultiWriter(enc, h), root); err != nil {
		enc.Close()
		return Sum{}, err
	}
	if err := enc.Close(); err != nil {
		return Sum{}, fmt.Errorf("unit: compress: %w", err)
	}
	return h.sum(), nil
}

// Decompress writes what the zstd stream r holds to w, which must be
// exactly size bytes (at most MaxSize): it never writes past size, and a
// stream that holds more or less is an ErrDigest error.
func Decompress(r io.Reader, w io.Writer, size int64) error {
	if size < 0 || size > MaxSize {
		return fmt.Errorf("%w: a unit of %d bytes (at most %d)", ErrFormat, size, int64(MaxSize))
	}
	dec, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	defer dec.Close()
	n, err := io.Copy(w, io.LimitReader(dec, size))
	if err != nil {
		return fmt.Errorf("unit: decompress: %w", err)
	}
	if n < size {
		return fmt.Errorf("%w: the artifact unpacks to %d bytes, the manifest says %d", ErrDigest, n, size)
	}
	var one [1]byte
	if k, _ := io.ReadFull(dec, one[:]); k > 0 {
		return fmt.Errorf("%w: the artifact unpacks to more than the manifest's %d bytes", ErrDigest, size)
	}
	return nil
}

// Unpack decompresses the artifact at src into dst (a file, mode 0600,
// written under a temporary name and renamed when whole) and checks it is
// the unit want names. On any error dst is not there.
func Unpack(src, dst string, want Sum) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	defer in.Close()
	part := dst + ".part"
	out, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	h := newHasher()
	err = Decompress(in, io.MultiWriter(out, h), want.Size)
	if err == nil {
		err = want.check(h.sum())
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(part, dst)
	}
	if err != nil {
		os.Remove(part) // ours, and wrong or half written
		return err
	}
	return nil
}

// VerifyFile checks that the file at path is the unit tar want names.
func VerifyFile(path string, want Sum) error {
	err := transfer.VerifyFile(path, transfer.Sum(want))
	if errors.Is(err, transfer.ErrMismatch) {
		return fmt.Errorf("%w: %w", ErrDigest, err)
	}
	return err
}

// check compares a Sum found with the one wanted.
func (want Sum) check(got Sum) error {
	if got != want {
		return fmt.Errorf("%w: the unit is %s, the manifest says %s", ErrDigest, got, want)
	}
	return nil
}

// ExtractArtifact extracts a unit artifact (the zstd-compressed unit tar)
// from r into dst, as Extract does, and returns the tar's Sum: what the
// release tool records as unit_sha256 and unit_size.
func ExtractArtifact(r io.Reader, dst string) (Sum, error) {
	dec, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return Sum{}, fmt.Errorf("unit: %w", err)
	}
	defer dec.Close()
	return Extract(dec, dst)
}
