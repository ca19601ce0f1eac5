package delta

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/klauspost/compress/zstd"
)

// The patch primitive: zstd with the old bytes as a raw dictionary, what
// `zstd --patch-from=OLD` does (dictionary id 0, so `zstd -d
// --patch-from=OLD PATCH` reads our patches too, for a look by hand). A
// patch is one zstd frame that names its content size; its window covers
// the old bytes and the new ones, so a match reaches back across the
// whole reference, not only the last 8 MiB the best level uses by
// default.

// dictID is the raw dictionary's id: 0, as zstd --patch-from.
const dictID = 0

// MaxWindow bounds what a patch spans: the old bytes and the new ones
// together (zstd's largest window, 512 MiB).
const MaxWindow = zstd.MaxWindowSize

// Errors. Each is wrapped with what it is about.
var (
	// ErrPatch: a patch that is not one this package makes (not a zstd
	// frame, no content size, another dictionary) or that does not
	// decode against the reference it is applied to.
	ErrPatch = errors.New("delta: bad patch")
	// ErrTooBig: a patch whose output would pass the limit it is applied
	// with, or inputs over MaxWindow.
	ErrTooBig = errors.New("delta: over the size limit")
)

// MakePatch returns the patch that turns old into new.
func MakePatch(old, new []byte) ([]byte, error) {
	w, err := window(int64(len(old)) + int64(len(new)))
	if err != nil {
		return nil, err
	}
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderDictRaw(dictID, old),
		zstd.WithWindowSize(w),
		zstd.WithEncoderCRC(true),
		// One segment: the frame always names its content size (ApplyPatch
		// needs it), even for a few bytes; an empty release is a frame too.
		zstd.WithSingleSegment(true),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	defer enc.Close()
	return enc.EncodeAll(new, nil), nil
}

// ApplyPatch applies patch to old and returns the new bytes. A patch
// whose frame says it holds more than limit bytes is refused before
// anything is decoded, and the decoder never writes past limit (nor keeps
// a window larger than old and limit need), so a hostile patch costs at
// most that much memory.
func ApplyPatch(old, patch []byte, limit int64) ([]byte, error) {
	size, err := contentSize(patch)
	if err != nil {
		return nil, err
	}
	if size > limit {
		return nil, fmt.Errorf("%w: the patch makes %d bytes, at most %d expected", ErrTooBig, size, limit)
	}
	w, err := window(int64(len(old)) + size)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderDictRaw(dictID, old),
		zstd.WithDecoderMaxWindow(uint64(w)),
		zstd.WithDecoderMaxMemory(uint64(max(size, zstd.MinWindowSize))), // the cap on dst bounds the output itself
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	defer dec.Close()
	out, err := dec.DecodeAll(patch, make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPatch, err)
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("%w: it made %d bytes, its frame says %d", ErrPatch, len(out), size)
	}
	return out, nil
}

// contentSize reads the content size a patch's frame header declares.
func contentSize(patch []byte) (int64, error) {
	var h zstd.Header
	if err := h.Decode(patch); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrPatch, err)
	}
	switch {
	case h.Skippable:
		return 0, fmt.Errorf("%w: a skippable frame", ErrPatch)
	case !h.HasFCS:
		return 0, fmt.Errorf("%w: the frame does not say how much it holds", ErrPatch)
	case h.DictionaryID != dictID:
		return 0, fmt.Errorf("%w: made against dictionary %d, not a release", ErrPatch, h.DictionaryID)
	case h.FrameContentSize > MaxWindow:
		return 0, fmt.Errorf("%w: the patch makes %d bytes", ErrTooBig, h.FrameContentSize)
	}
	return int64(h.FrameContentSize), nil
}

// window is the zstd window that spans n bytes: the next power of two,
// at least zstd's smallest.
func window(n int64) (int, error) {
	if n > MaxWindow {
		return 0, fmt.Errorf("%w: %d bytes of reference and result, at most %d", ErrTooBig, n, MaxWindow)
	}
	if n <= zstd.MinWindowSize {
		return zstd.MinWindowSize, nil
	}
	return 1 << bits.Len64(uint64(n-1)), nil
}
