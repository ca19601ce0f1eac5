package delta

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// release is a stand-in for a release: random bytes (so nothing but the
// reference can shrink them) with a gzip'd file inside, gzip'd by gz.
func release(seed uint64, size int, edit func([]byte), gz func([]byte) []byte) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	exe := make([]byte, size)
	for i := range exe {
		exe[i] = byte(r.Uint32())
	}
	core := make([]byte, size) // compressible, as a binary is, and not into stored blocks
	for i := range core {
		core[i] = "abcdefghijklmnop"[r.IntN(16)]
	}
	if edit != nil {
		edit(exe)
		edit(core)
	}
	var b bytes.Buffer
	b.Write(exe[:size/2])
	b.Write(gz(core))
	b.Write(exe[size/2:])
	return b.Bytes()
}

func goGzip(p []byte) []byte {
	var b bytes.Buffer
	if err := Gzip(&b, bytes.NewReader(p)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// otherGzip stands for a gzip that is not ours (GNU gzip's -9n): the
// same stream format, other bytes.
func otherGzip(p []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zw.Write(p)
	zw.Close()
	return b.Bytes()
}

func oneLine(p []byte) { copy(p[len(p)/3:], "a one-line change") }

func TestMakeApplyRoundTrip(t *testing.T) {
	old := release(1, 256<<10, nil, otherGzip)
	for _, tc := range []struct {
		name string
		new  []byte
	}{
		{"one-line change, our gzip", release(1, 256<<10, oneLine, goGzip)},
		{"one-line change, another gzip", release(1, 256<<10, oneLine, otherGzip)},
		{"unrelated", release(2, 256<<10, nil, goGzip)},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Make(old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := Apply(&b, old, p, int64(len(tc.new))); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), tc.new) {
				t.Fatalf("got %d bytes, want the %d of the new release", b.Len(), len(tc.new))
			}
		})
	}
}

// The point of the views: a one-line change inside a gzip'd file costs
// about what changed, when the new release is gzip'd our way.
func TestPatchOfGzipdFileIsSmall(t *testing.T) {
	old := release(1, 256<<10, nil, otherGzip)
	ours := release(1, 256<<10, oneLine, goGzip)
	theirs := release(1, 256<<10, oneLine, otherGzip)
	p, err := Make(old, ours)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := MakePatch(old, ours)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := Make(old, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > len(ours)/50 {
		t.Errorf("got a patch of %d bytes for a one-line change in %d, want at most %d", len(p), len(ours), len(ours)/50)
	}
	if len(plain) < 10*len(p) || len(pt) < 10*len(p) {
		t.Errorf("got %d bytes through views, %d without, %d with a gzip not ours: want the views ten times smaller", len(p), len(plain), len(pt))
	}
}

func TestApplyRefuses(t *testing.T) {
	old := release(1, 64<<10, nil, goGzip)
	new := release(1, 64<<10, oneLine, goGzip)
	p, err := Make(old, new)
	if err != nil {
		t.Fatal(err)
	}
	wrongOld := release(3, 64<<10, nil, goGzip)
	flipped := bytes.Clone(p)
	flipped[len(flipped)/2] ^= 0xff
	for _, tc := range []struct {
		name  string
		old   []byte
		patch []byte
		size  int64
		want  error
	}{
		{"a smaller size than the manifest's", old, p, int64(len(new)) - 1, ErrTooBig},
		{"a larger size than the manifest's", old, p, int64(len(new)) + 1, ErrPatch},
		{"another reference", wrongOld, p, int64(len(new)), ErrPatch},
		{"a corrupted patch", old, flipped, int64(len(new)), ErrPatch},
		{"not a patch", old, []byte("hello"), int64(len(new)), ErrPatch},
		{"empty", old, nil, int64(len(new)), ErrPatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Apply(&b, tc.old, tc.patch, tc.size)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// A patch whose frame promises more than the limit is refused from its
// header, before a byte is decoded.
func TestApplyPatchLimit(t *testing.T) {
	old := bytes.Repeat([]byte("x"), 4096)
	p, err := MakePatch(old, bytes.Repeat([]byte("y"), 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyPatch(old, p, 1<<20-1); !errors.Is(err, ErrTooBig) {
		t.Fatalf("got %v, want %v", err, ErrTooBig)
	}
	out, err := ApplyPatch(old, p, 1<<20)
	if err != nil || len(out) != 1<<20 {
		t.Fatalf("got %d bytes, %v; want %d", len(out), err, 1<<20)
	}
}

func TestExpandExact(t *testing.T) {
	core := bytes.Repeat([]byte("core "), 10000)
	data := append(append([]byte("head"), otherGzip(core)...), goGzip(core)...)
	loose, err := Expand(data, false)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := Expand(data, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := bytes.Count(loose, core), 2; got != want {
		t.Errorf("expanded %d members for the old side, want %d", got, want)
	}
	if got, want := bytes.Count(exact, core), 1; got != want {
		t.Errorf("expanded %d members for the new side, want %d (ours only)", got, want)
	}
	var b bytes.Buffer
	if err := Contract(&b, exact, int64(len(data))); err != nil || !bytes.Equal(b.Bytes(), data) {
		t.Fatalf("contract: %v, got back %d bytes of %d", err, b.Len(), len(data))
	}
}

// A release with more members than CPUs comes back byte for byte, in
// order (they are gzip'd side by side); a view in which one member does not
// gzip to the length its index says is refused before a byte is written.
func TestContractMembers(t *testing.T) {
	var data []byte
	for i := range 9 {
		data = append(data, bytes.Repeat([]byte{byte('a' + i)}, 100+i)...)
		data = append(data, goGzip(bytes.Repeat([]byte(fmt.Sprintf("core %d ", i)), 2000*(i+1)))...)
	}
	data = append(data, "tail"...)
	view, err := Expand(data, true)
	if err != nil {
		t.Fatal(err)
	}
	regions, body, err := readIndex(view)
	if err != nil || len(regions) != 9 {
		t.Fatalf("got %d members, %v; want 9", len(regions), err)
	}
	var b bytes.Buffer
	if err := Contract(&b, view, int64(len(data))); err != nil || !bytes.Equal(b.Bytes(), data) {
		t.Fatalf("contract: %v, got back %d bytes of %d", err, b.Len(), len(data))
	}

	// The fifth member said one byte longer, the tail one byte shorter:
	// the sizes still add up, the member does not.
	regions[4].gzLen++
	var raws [][]byte
	rest := body
	for _, r := range regions {
		raws = append(raws, rest[r.gap:r.gap+r.rawLen])
		rest = rest[r.gap+r.rawLen:]
	}
	var gzs []byte
	pos := 0
	for i, r := range regions {
		gzs = append(gzs, body[pos:pos+int(r.gap)]...)
		gzs = append(gzs, make([]byte, r.gzLen)...)
		pos += int(r.gap) + len(raws[i])
	}
	gzs = append(gzs, rest[:len(rest)-1]...)
	bad := writeView(gzs, regions, raws, int64(len(body)))
	b.Reset()
	err = Contract(&b, bad, int64(len(data)))
	if !errors.Is(err, ErrPatch) || b.Len() != 0 {
		t.Fatalf("got %v after %d bytes, want %v before any", err, b.Len(), ErrPatch)
	}
}

// A view of countless empty members (a bad patch that is still signed) is
// refused from its index: nothing is gzip'd or allocated for each member.
func TestContractRefusesEmptyMembers(t *testing.T) {
	const n = 100000
	view := append(bytes.Clone(viewMagic), binary.AppendUvarint(nil, n)...)
	view = append(view, make([]byte, 3*n)...) // every gap, gzLen and rawLen 0
	var err error
	allocs := testing.AllocsPerRun(3, func() { err = Contract(io.Discard, view, 0) })
	if !errors.Is(err, ErrPatch) {
		t.Fatalf("got %v, want %v", err, ErrPatch)
	}
	if allocs > 100 {
		t.Errorf("%.0f allocations to refuse it, want a few (none per member)", allocs)
	}
}

// No input makes Contract panic or write past its size.
func FuzzContract(f *testing.F) {
	data := append([]byte("head"), goGzip(bytes.Repeat([]byte("core "), 100))...)
	v, _ := Expand(data, true)
	f.Add(v, int64(len(data)))
	f.Add([]byte("hdv1\x01\x00\x00\x00"), int64(0))
	f.Add([]byte("hdv1\x01\x05\xff\xff\x03\x7f"), int64(10))
	f.Fuzz(func(t *testing.T, view []byte, size int64) {
		if size < 0 || size > 1<<20 {
			return
		}
		var b bytes.Buffer
		err := Contract(&b, view, size)
		if int64(b.Len()) > size {
			t.Fatalf("wrote %d bytes, size %d", b.Len(), size)
		}
		if err == nil && int64(b.Len()) != size {
			t.Fatalf("no error with %d bytes of %d", b.Len(), size)
		}
	})
}
