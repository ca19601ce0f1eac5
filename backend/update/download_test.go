package update

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hermes-desktop/lockfile/lockfiletest"
)

func download(t *testing.T, c *Client, progress func(Progress)) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rel, err := c.Check(ctx)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	return c.Download(ctx, rel, progress)
}

func TestDownload(t *testing.T) {
	k := newKey(t)
	art := randomBytes(3 << 20)
	f := newFeed(t)
	f.publish(t, k, "1.1.0", "stable", "1.1.0", art)
	c := newClient(t, f, k, "1.0.0")
	var last Progress
	calls := 0
	path, err := download(t, c, func(p Progress) { last = p; calls++ })
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, art) {
		t.Fatal("downloaded file differs from the artifact")
	}
	if last.Bytes != int64(len(art)) || last.Total != int64(len(art)) || calls == 0 || last.Speed <= 0 {
		t.Errorf("last progress %+v after %d calls, want all bytes and a speed", last, calls)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700, filepath.Dir(filepath.Dir(path)): 0o700} {
		lockfiletest.WantPrivate(t, p, want)
	}
	// A second download of the same release is the verified file on disk.
	before := f.artifactGets.Load()
	if _, err := download(t, c, nil); err != nil || f.artifactGets.Load() != before {
		t.Errorf("second download: %v, %d more requests; want none", err, f.artifactGets.Load()-before)
	}
}

func TestDownloadResumesATruncatedResponse(t *testing.T) {
	for _, noRange := range []bool{false, true} {
		t.Run(fmt.Sprintf("noRange=%v", noRange), func(t *testing.T) {
			k := newKey(t)
			art := randomBytes(2 << 20)
			f := newFeed(t)
			f.publish(t, k, "1.1.0", "stable", "1.1.0", art)
			f.cutFirst, f.noRange = 700<<10, noRange
			path, err := download(t, newClient(t, f, k, "1.0.0"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, art) {
				t.Fatal("resumed file differs from the artifact")
			}
			wantRanges := int32(1)
			if noRange {
				wantRanges = 0 // started over
			}
			if f.artifactGets.Load() != 2 || f.rangeGets.Load() != wantRanges {
				t.Errorf("got %d requests, %d with a range; want 2 and %d", f.artifactGets.Load(), f.rangeGets.Load(), wantRanges)
			}
		})
	}
}

func TestDownloadResumesAcrossCalls(t *testing.T) {
	k := newKey(t)
	art := randomBytes(1 << 20)
	f := newFeed(t)
	f.publish(t, k, "1.1.0", "stable", "1.1.0", art)
	c := newClient(t, f, k, "1.0.0")
	// A part file left by an earlier run (the app was quit mid-download).
	dir := filepath.Join(c.cfg.Dir, "1.1.0")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ArtifactName+".part"), art[:300<<10], 0o600); err != nil {
		t.Fatal(err)
	}
	var first Progress
	path, err := download(t, c, func(p Progress) {
		if first.Total == 0 {
			first = p
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, art) || f.rangeGets.Load() != 1 {
		t.Fatalf("got %d range requests, file equal %v; want one resume", f.rangeGets.Load(), bytes.Equal(got, art))
	}
	if first.Bytes < 300<<10 {
		t.Errorf("first progress %+v, want it to count the resumed bytes", first)
	}
}

func TestDownloadRefusesWrongBytes(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(f *feed)
	}{
		{"tampered", func(f *feed) { f.artifact[100] ^= 1 }},
		{"longer", func(f *feed) { f.extra = []byte("more") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKey(t)
			f := newFeed(t)
			f.publish(t, k, "1.1.0", "stable", "1.1.0", randomBytes(500<<10))
			tc.mutate(f)
			c := newClient(t, f, k, "1.0.0")
			_, err := download(t, c, nil)
			if !errors.Is(err, ErrChecksum) || Reason(err) != "checksum" {
				t.Fatalf("got %v, want ErrChecksum", err)
			}
			left, _ := filepath.Glob(filepath.Join(c.cfg.Dir, "1.1.0", "*"))
			if len(left) != 0 {
				t.Errorf("left after a refused download: %v", left)
			}
		})
	}
}

func TestDownloadGivesUpWhenOffline(t *testing.T) {
	k := newKey(t)
	f := newFeed(t)
	f.publish(t, k, "1.1.0", "stable", "1.1.0", randomBytes(1000))
	c := newClient(t, f, k, "1.0.0")
	rel, err := check(t, c)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Download(ctx, rel, nil); !errors.Is(err, ErrOffline) {
		t.Fatalf("got %v, want ErrOffline", err)
	}
}

// TestClassifyDiskFull: every error this OS reports a full disk (or a
// full quota) with is ErrDiskFull; others are left alone.
func TestClassifyDiskFull(t *testing.T) {
	for _, errno := range diskFullErrnos {
		err := classifyWrite(&os.PathError{Op: "write", Path: "x", Err: errno})
		if !errors.Is(err, ErrDiskFull) || Reason(err) != "disk-full" {
			t.Errorf("%v: got %v (reason %q), want ErrDiskFull (disk-full)", errno, err, Reason(err))
		}
	}
	if err := classifyWrite(os.ErrPermission); errors.Is(err, ErrDiskFull) {
		t.Errorf("got %v, want it left alone", err)
	}
}

// A partial file with wrong bytes (a disk error, another program) is
// caught by the checksum after the resume, removed, and the next try
// starts over.
func TestDownloadCatchesACorruptPartialFile(t *testing.T) {
	k := newKey(t)
	art := randomBytes(1 << 20)
	f := newFeed(t)
	f.publish(t, k, "1.1.0", "stable", "1.1.0", art)
	c := newClient(t, f, k, "1.0.0")
	dir := filepath.Join(c.cfg.Dir, "1.1.0")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(art[:200<<10])
	bad[10] ^= 1
	if err := os.WriteFile(filepath.Join(dir, ArtifactName+".part"), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := download(t, c, nil); !errors.Is(err, ErrChecksum) {
		t.Fatalf("got %v, want ErrChecksum", err)
	}
	path, err := download(t, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, art) {
		t.Fatal("the second download differs from the artifact")
	}
}
