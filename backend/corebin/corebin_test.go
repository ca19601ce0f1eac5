//go:build unix

package corebin

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// script is a stand-in core: a shell script that answers `version --json`
// as the real one does.
func script(version string) []byte {
	return []byte("#!/bin/sh\n[ \"$1\" = version ] && [ \"$2\" = --json ] && printf '{\"version\":\"%s\"}\\n' '" + version + "'\n")
}

// payloadOf builds an embedded payload holding core, with digest as its
// SHA-256 file ("" for core's own).
func payloadOf(t *testing.T, core []byte, digest string) fstest.MapFS {
	t.Helper()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(core); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if digest == "" {
		digest = sum(core)
	}
	return fstest.MapFS{
		payloadCore: {Data: gz.Bytes()},
		payloadSum:  {Data: []byte(digest + "\n")},
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func coreDir(t *testing.T) string {
	t.Helper()
	state := t.TempDir()
	if err := os.Chmod(state, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(state, Dir)
}

func TestLocateWritesTheCoreOnceAndReusesIt(t *testing.T) {
	core := script("1.2.3")
	src, dir := payloadOf(t, core, ""), coreDir(t)
	path, err := locate(src, dir, "1.2.3")
	if err != nil {
		t.Fatalf("locate: %v", err)
	}
	if want := filepath.Join(dir, filePrefix+sum(core)[:16]); path != want {
		t.Fatalf("got %s, want %s", path, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("got mode %v, want 0700", fi.Mode().Perm())
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, core) {
		t.Fatalf("got %q, want the payload", got)
	}
	again, err := locate(src, dir, "1.2.3")
	if err != nil || again != path {
		t.Fatalf("second locate: got %s, %v; want %s", again, err, path)
	}
	fi2, _ := os.Stat(path)
	if !os.SameFile(fi, fi2) {
		t.Fatal("the second locate rewrote a good core")
	}
}

func TestLocateReplacesAnAlteredCore(t *testing.T) {
	core := script("1.2.3")
	src, dir := payloadOf(t, core, ""), coreDir(t)
	path, err := locate(src, dir, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, script("1.2.3 plus a change"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := locate(src, dir, "1.2.3"); err != nil {
		t.Fatalf("locate: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, core) {
		t.Fatalf("got %q, want the payload back", got)
	}
}

func TestLocateReplacesALinkWithoutWritingThroughIt(t *testing.T) {
	core := script("1.2.3")
	src, dir := payloadOf(t, core, ""), coreDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filePrefix+sum(core)[:16])
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if _, err := locate(src, dir, "1.2.3"); err != nil {
		t.Fatalf("locate: %v", err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Fatalf("the link's target became %q", got)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("got %v, %v; want a regular file", fi.Mode(), err)
	}
}

func TestLocateFallsBack(t *testing.T) {
	good := script("1.2.3")
	failing := []byte("#!/bin/sh\nexit 3\n")
	cases := []struct {
		name    string
		src     fstest.MapFS
		version string
		want    string
	}{
		{"no payload", fstest.MapFS{"README.md": {Data: []byte("x")}}, "1.2.3", "carries no core"},
		{"another version", payloadOf(t, good, ""), "1.2.4", `is version "1.2.3", want "1.2.4"`},
		{"a core that fails", payloadOf(t, failing, ""), "1.2.3", "exit status 3"},
		{"a digest that does not match", payloadOf(t, good, sum([]byte("other"))), "1.2.3", "unpacks to SHA-256"},
		{"no digest", fstest.MapFS{payloadSum: {Data: []byte("not hex")}}, "1.2.3", "not a SHA-256"},
		{"a corrupt archive", fstest.MapFS{payloadCore: {Data: []byte("not gzip")}, payloadSum: {Data: []byte(sum(good))}}, "1.2.3", payloadCore},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := coreDir(t)
			path, err := locate(c.src, dir, c.version)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %q, %v; want an error with %q", path, err, c.want)
			}
			if path != "" {
				t.Fatalf("got path %s with an error", path)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Fatalf("left a temporary file %s", e.Name())
				}
			}
		})
	}
	if _, err := locate(nil, coreDir(t), "1.2.3"); !errors.Is(err, ErrNoPayload) {
		t.Fatalf("nil payload: got %v, want ErrNoPayload", err)
	}
}

func TestLocateRefusesADirectoryOthersMayWrite(t *testing.T) {
	src, dir := payloadOf(t, script("1.2.3"), ""), coreDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if path, err := locate(src, dir, "1.2.3"); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("got %q, %v; want a refusal", path, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("wrote %d files into an unsafe directory", len(entries))
	}
}

func TestLocateKeepsTheNewestOtherCore(t *testing.T) {
	src, dir := payloadOf(t, script("1.2.3"), ""), coreDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := map[string]time.Duration{"aaaaaaaaaaaaaaaa": 3 * time.Hour, "bbbbbbbbbbbbbbbb": time.Hour, "cccccccccccccccc": 2 * time.Hour}
	for name, age := range old {
		p := filepath.Join(dir, filePrefix+name)
		if err := os.WriteFile(p, []byte("old"), 0o700); err != nil {
			t.Fatal(err)
		}
		if name != "bbbbbbbbbbbbbbbb" { // a stamp goes with its core; the kept core's stays
			if err := os.WriteFile(stampPath(p), []byte("v1"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	unrelated := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(unrelated, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path, err := locate(src, dir, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		got = append(got, filepath.Join(dir, e.Name()))
	}
	want := []string{filepath.Join(dir, filePrefix+"bbbbbbbbbbbbbbbb"), path, stampPath(path), unrelated}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
