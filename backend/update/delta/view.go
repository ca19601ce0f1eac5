package delta

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// The view a patch is made between. A release carries gzip'd files (the
// remote cores in cores/, the core the Linux desktop build embeds): a
// one-line change rewrites every compressed byte after it, so a patch
// between the files as they are is nearly as big as the files. A patch
// is therefore made between views: the release with each gzip member in it
// replaced by what it holds, so that zstd sees the few bytes that changed.
//
//	view   = "hdv1" uvarint(n) n × (uvarint(gap) uvarint(gzLen) uvarint(rawLen)) body
//	body   = the bytes, each expanded member's gzLen bytes replaced by its rawLen bytes
//
// A gap is the count of bytes kept as they are before a member (after the
// previous one). Going back (contract) gzips each member again with Gzip,
// which must give the same bytes: the release tool expands a member of the
// new release only when it does (Go's compress/gzip at its best level, a
// zero header: what `release gzip` writes), and the client checks the
// result against the signed digest anyway. The old side is expanded
// wherever a member inflates cleanly: both ends do that with the same
// rules, so they get the same reference.

var viewMagic = []byte("hdv1")

// MaxView bounds a view, and so expansion, the same on both ends (it
// decides which members are expanded, so it is part of the format): no
// member is expanded that would take the view past it. The reference and
// the result of a patch together stay inside MaxWindow.
const MaxView = MaxWindow / 2

// region is one expanded gzip member.
type region struct {
	gap, gzLen, rawLen int64
}

// gzipMagic starts a gzip member: ID1, ID2, CM deflate.
var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// Expand returns the view of data. With exact, only the members Gzip gives
// back byte for byte are expanded (the new side of a patch: contract must
// rebuild it); without, every member that inflates cleanly (the old side).
func Expand(data []byte, exact bool) ([]byte, error) {
	if int64(len(data)) > MaxView {
		return nil, fmt.Errorf("%w: %d bytes to expand, at most %d", ErrTooBig, len(data), int64(MaxView))
	}
	var regions []region
	var raws [][]byte
	var scratch bytes.Buffer // one buffer inflates every member: growing one per member was half of Expand's time
	total, last := int64(len(data)), 0
	for pos := 0; ; {
		i := bytes.Index(data[pos:], gzipMagic)
		if i < 0 {
			break
		}
		start := pos + i
		n, raw := inflateMember(&scratch, data[start:], MaxView-total)
		if raw == nil || (exact && !regzips(raw, data[start:start+n])) {
			pos = start + 1
			continue
		}
		regions = append(regions, region{gap: int64(start - last), gzLen: int64(n), rawLen: int64(len(raw))})
		raws = append(raws, raw)
		total += int64(len(raw)) - int64(n)
		pos, last = start+n, start+n
	}
	return writeView(data, regions, raws, total), nil
}

// inflateMember reads one gzip member at the start of b, through scratch:
// its length and what it holds (a copy of its own), or a nil slice when it
// is not one that inflates cleanly (bad header or stream, CRC or length
// wrong, more than limit bytes).
func inflateMember(scratch *bytes.Buffer, b []byte, limit int64) (int, []byte) {
	br := bytes.NewReader(b) // an io.ByteReader: gzip reads no further than the member
	zr, err := gzip.NewReader(br)
	if err != nil {
		return 0, nil
	}
	zr.Multistream(false)
	scratch.Reset()
	n, err := io.Copy(scratch, io.LimitReader(zr, limit+1))
	if err != nil || n > limit {
		return 0, nil
	}
	return len(b) - br.Len(), bytes.Clone(scratch.Bytes())
}

// regzips reports whether Gzip gives back member from raw.
func regzips(raw, member []byte) bool {
	var b bytes.Buffer
	b.Grow(len(member))
	return Gzip(&b, bytes.NewReader(raw)) == nil && bytes.Equal(b.Bytes(), member)
}

// Gzip writes r to w gzip'd as a release's gzip'd files must be for the
// patches to expand them: Go's compress/gzip at its best level, with a
// zero header (no name, no time). `release gzip` is this.
func Gzip(w io.Writer, r io.Reader) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	if _, err := io.Copy(zw, r); err != nil {
		return fmt.Errorf("delta: gzip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("delta: gzip: %w", err)
	}
	return nil
}

// writeView lays out the view, of a body of size bytes: the index, then
// the body.
func writeView(data []byte, regions []region, raws [][]byte, size int64) []byte {
	var v bytes.Buffer
	v.Grow(len(viewMagic) + (1+3*len(regions))*binary.MaxVarintLen64 + int(size))
	v.Write(viewMagic)
	v.Write(binary.AppendUvarint(nil, uint64(len(regions))))
	for _, r := range regions {
		for _, x := range []int64{r.gap, r.gzLen, r.rawLen} {
			v.Write(binary.AppendUvarint(nil, uint64(x)))
		}
	}
	pos := int64(0)
	for i, r := range regions {
		v.Write(data[pos : pos+r.gap])
		v.Write(raws[i])
		pos += r.gap + r.gzLen
	}
	v.Write(data[pos:])
	return v.Bytes()
}

// errView: a view that does not read back (a patch that made something
// else than a view, or one that does not contract to its sizes).
var errView = errors.New("not a view")

// minMember is the least a gzip member takes: its header and trailer.
const minMember = 18

// Contract writes the bytes view stands for to w: exactly size bytes, or
// an ErrPatch error (with what was written so far to be thrown away).
// Gzip at its best level is nearly all of an update's rebuild (6 s for a
// unit's five members on one core), so the members are gzip'd side by
// side, one per CPU, held (up to size in all) and written in order.
func Contract(w io.Writer, view []byte, size int64) error {
	regions, body, err := readIndex(view)
	if err != nil {
		return err
	}
	// The index must add up before anything is gzip'd. A member takes
	// minMember bytes at least, so a view of countless empty members is
	// refused here, before anything is allocated for each.
	var gaps, raws [][]byte
	total := int64(0)
	for _, r := range regions {
		if r.gap+r.rawLen > int64(len(body)) || r.gzLen < minMember {
			return fmt.Errorf("%w: %w: a member past its end or too short", ErrPatch, errView)
		}
		if total += r.gap + r.gzLen; total > size {
			return fmt.Errorf("%w: the patch makes more than the %d bytes expected", ErrTooBig, size)
		}
		gaps, raws = append(gaps, body[:r.gap]), append(raws, body[r.gap:r.gap+r.rawLen])
		body = body[r.gap+r.rawLen:]
	}
	switch made := total + int64(len(body)); {
	case made > size:
		return fmt.Errorf("%w: the patch makes %d bytes, %d expected", ErrTooBig, made, size)
	case made < size:
		return fmt.Errorf("%w: %d bytes, %d expected", ErrPatch, made, size)
	}
	members, err := gzipMembers(regions, raws)
	if err != nil {
		return err
	}
	cw := &capWriter{w: w, left: size}
	for i := range regions {
		if _, err := cw.Write(gaps[i]); err != nil {
			return err
		}
		if _, err := cw.Write(members[i]); err != nil {
			return err
		}
	}
	_, err = cw.Write(body)
	return err
}

// gzipMembers gzips each raw with Gzip, GOMAXPROCS at a time, and checks
// each comes to its region's gzLen. Once one does not, the workers take
// no more; the first error in order is returned, once every worker has
// stopped.
func gzipMembers(regions []region, raws [][]byte) ([][]byte, error) {
	members, errs := make([][]byte, len(raws)), make([]error, len(raws))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(raws)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(raws) && !failed.Load(); i = int(next.Add(1) - 1) {
				if members[i], errs[i] = gzipMember(regions[i].gzLen, raws[i]); errs[i] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return members, nil
}

// gzipMember gzips raw, which must come to exactly gzLen bytes.
func gzipMember(gzLen int64, raw []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(int(gzLen))
	cw := &capWriter{w: &b, left: gzLen}
	err := Gzip(cw, bytes.NewReader(raw))
	if errors.Is(err, ErrTooBig) || err == nil && cw.left != 0 {
		return nil, fmt.Errorf("%w: a member gzips to other than the %d bytes the view says", ErrPatch, gzLen)
	}
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// readIndex parses the view's index and returns it with the body.
func readIndex(view []byte) ([]region, []byte, error) {
	if !bytes.HasPrefix(view, viewMagic) {
		return nil, nil, fmt.Errorf("%w: %w", ErrPatch, errView)
	}
	r := bytes.NewReader(view[len(viewMagic):])
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(r.Len())/3 {
		return nil, nil, fmt.Errorf("%w: %w: a bad index", ErrPatch, errView)
	}
	regions := make([]region, n)
	for i := range regions {
		var x [3]uint64
		for j := range x {
			if x[j], err = binary.ReadUvarint(r); err != nil || x[j] > MaxView {
				return nil, nil, fmt.Errorf("%w: %w: a bad index", ErrPatch, errView)
			}
		}
		regions[i] = region{gap: int64(x[0]), gzLen: int64(x[1]), rawLen: int64(x[2])}
	}
	return regions, view[len(view)-r.Len():], nil
}

// capWriter writes at most left bytes; more is an ErrTooBig error.
type capWriter struct {
	w       io.Writer
	left, n int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, fmt.Errorf("%w: the patch makes more than the %d bytes expected", ErrTooBig, c.n+c.left)
	}
	k, err := c.w.Write(p)
	c.left -= int64(k)
	c.n += int64(k)
	return k, err
}
