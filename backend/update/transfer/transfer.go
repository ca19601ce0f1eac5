// Package transfer measures and hashes a download as it arrives: the
// progress a person sees (Meter, throttled reports with a speed), the
// file's SHA-256 computed while it is written (Hash), so that verifying it
// does not read the whole file again, and the check of a finished file
// against what the manifest names (VerifyFile). backend/update's downloads
// (the artifact, a patch) and its unit tar use them; the HTTP, the resume
// and the error kinds are update's.
package transfer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"time"
)

// Progress is a download's state, reported as it goes.
type Progress struct {
	Bytes int64 // received so far, resumed bytes included
	Total int64
	// Speed is the recent rate in bytes per second (0 until measured).
	Speed float64
}

// Meter measures a download and reports it, throttled. Not safe for
// concurrent use: the download's goroutine owns it.
type Meter struct {
	fn     func(Progress)
	total  int64
	bytes  int64
	speed  float64
	winAt  time.Time // start of the current speed window
	winB   int64     // bytes at its start
	lastAt time.Time // last report
	start  time.Time
	got    int64 // bytes received by this download (not resumed ones)
}

// NewMeter measures a download of total bytes, reporting to fn (nil: no
// reports) at most every 100 ms, and once at Finish.
func NewMeter(total int64, fn func(Progress)) *Meter {
	now := time.Now()
	return &Meter{fn: fn, total: total, winAt: now, start: now}
}

// Total is the download's size.
func (m *Meter) Total() int64 { return m.total }

// Resume sets the byte count at the start of an attempt.
func (m *Meter) Resume(have int64) {
	m.bytes, m.winB, m.winAt = have, have, time.Now()
}

// Add counts n bytes received.
func (m *Meter) Add(n int64) {
	m.bytes += n
	m.got += n
	now := time.Now()
	if d := now.Sub(m.winAt); d >= 250*time.Millisecond {
		m.speed = float64(m.bytes-m.winB) / d.Seconds()
		m.winAt, m.winB = now, m.bytes
	}
	if now.Sub(m.lastAt) >= 100*time.Millisecond {
		m.lastAt = now
		m.report()
	}
}

// Finish reports the end, with the average speed of what was received.
func (m *Meter) Finish(total int64) {
	m.bytes = total
	if d := time.Since(m.start); m.got > 0 && d > 0 {
		m.speed = float64(m.got) / d.Seconds()
	}
	m.report()
}

func (m *Meter) report() {
	if m.fn != nil {
		m.fn(Progress{Bytes: m.bytes, Total: m.total, Speed: m.speed})
	}
}

// Hash hashes a download as it is written, in a goroutine of its own fed
// through a pipe, so hashing overlaps the network. After a resume it
// first catches up from the part file (Seek).
type Hash struct {
	h    hash.Hash
	n    int64 // bytes hashed: the part file's first n bytes
	done chan int64
}

// NewHash is a SHA-256 of nothing yet.
func NewHash() *Hash { return &Hash{h: sha256.New()} }

// N is how many of the part file's first bytes the hash covers.
func (d *Hash) N() int64 { return d.n }

// Sum is the SHA-256 of the part file's first N bytes.
func (d *Hash) Sum() []byte { return d.h.Sum(nil) }

// Seek makes the hash cover exactly the part file's first from bytes.
func (d *Hash) Seek(part string, from int64) error {
	if d.n > from {
		d.h.Reset()
		d.n = 0
	}
	if d.n == from {
		return nil
	}
	f, err := os.Open(part)
	if err != nil {
		return fmt.Errorf("transfer: %w", err)
	}
	defer f.Close()
	k, err := io.Copy(d.h, io.NewSectionReader(f, d.n, from-d.n))
	d.n += k
	if err != nil {
		return fmt.Errorf("transfer: hash %s: %w", part, err)
	}
	return nil
}

// Start returns the writer an attempt feeds; Stop ends it. Every byte
// written to the part file is written to it, in the same order.
func (d *Hash) Start() *io.PipeWriter {
	pr, pw := io.Pipe()
	d.done = make(chan int64, 1)
	go func() { // ends when Stop closes the pipe
		k, _ := io.CopyBuffer(d.h, pr, make([]byte, 256<<10))
		d.done <- k
	}()
	return pw
}

// Stop closes the attempt's writer and waits for its bytes to be hashed.
func (d *Hash) Stop(pw *io.PipeWriter) {
	pw.Close()
	d.n += <-d.done
}

// ErrMismatch is the error for a file that is not the one a manifest
// names (its size or its SHA-256).
var ErrMismatch = errors.New("not the file the manifest names")

// Sum names a file by its SHA-256 (lowercase hex) and length.
type Sum struct {
	SHA256 string
	Size   int64
}

// VerifyFile checks that the file at path is want: its size first, then
// its SHA-256, streamed.
func VerifyFile(path string, want Sum) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("transfer: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("transfer: %w", err)
	}
	if fi.Size() != want.Size {
		return fmt.Errorf("%w: %d bytes, the manifest says %d", ErrMismatch, fi.Size(), want.Size)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("transfer: read %s: %w", path, err)
	}
	return want.check(h.Sum(nil))
}

// Verify checks the part file against want: from the running hash when
// it covers the whole file, else by reading it again.
func (d *Hash) Verify(part string, want Sum) error {
	fi, err := os.Stat(part)
	if err != nil {
		return fmt.Errorf("transfer: %w", err)
	}
	if fi.Size() != want.Size || d.n != want.Size {
		return VerifyFile(part, want)
	}
	return want.check(d.h.Sum(nil))
}

func (want Sum) check(sum []byte) error {
	if got := hex.EncodeToString(sum); got != want.SHA256 {
		return fmt.Errorf("%w: sha256 %s, the manifest says %s", ErrMismatch, got, want.SHA256)
	}
	return nil
}
