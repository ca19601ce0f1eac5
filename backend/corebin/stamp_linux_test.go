package corebin

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// countingScript is a stand-in core that notes each run of `version` in
// runs, so a test sees whether a start checked it again.
func countingScript(version, runs string) []byte {
	return []byte("#!/bin/sh\necho run >> '" + runs + "'\n[ \"$1\" = version ] && [ \"$2\" = --json ] && printf '{\"version\":\"%s\"}\\n' '" + version + "'\n")
}

func runsOf(t *testing.T, runs string) int {
	t.Helper()
	b, err := os.ReadFile(runs)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("run\n"))
}

// settle waits out the clock tick a stamp was written in, as the next
// start of the app does by coming later.
func settle() { time.Sleep(20 * time.Millisecond) }

// checkedCore is a core located once (so checked and stamped), with the
// file its runs are noted in, after the tick its stamp was written in.
func checkedCore(t *testing.T) (src fstest.MapFS, dir, path, runs string, core []byte) {
	t.Helper()
	runs = filepath.Join(t.TempDir(), "runs")
	core = countingScript("1.2.3", runs)
	src, dir = payloadOf(t, core, ""), coreDir(t)
	path, err := locate(src, dir, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	settle()
	return src, dir, path, runs, core
}

// A core checked once is trusted as long as it is the same file: the next
// start neither rewrites it nor runs it again.
func TestLocateTrustsTheCoreItChecked(t *testing.T) {
	src, dir, path, runs, _ := checkedCore(t)
	if n := runsOf(t, runs); n != 1 {
		t.Fatalf("the first locate ran the core %d times, want 1", n)
	}
	for range 3 {
		again, err := locate(src, dir, "1.2.3")
		if err != nil || again != path {
			t.Fatalf("locate: %q, %v; want %q", again, err, path)
		}
	}
	if n := runsOf(t, runs); n != 1 {
		t.Errorf("three more locates ran the core %d more times, want none", n-1)
	}
	// Another version of the app checks it again (and finds it wrong).
	if _, err := locate(src, dir, "1.2.4"); err == nil || !strings.Contains(err.Error(), `want "1.2.4"`) {
		t.Errorf("locate for another version: %v, want the version check's refusal", err)
	}
}

// Any change to a checked core, even one of the same size with its
// modification time put back, is checked again and undone.
func TestLocateChecksAChangedCoreAgain(t *testing.T) {
	src, dir, path, _, core := checkedCore(t)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	altered := bytes.Replace(core, []byte("echo run"), []byte("echo RUN"), 1)
	if err := os.WriteFile(path, altered, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, err := locate(src, dir, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, core) {
		t.Errorf("the core is %q after the change, want the payload back", got)
	}
}

// A stamp that is not the launcher's, not about this file, or written in
// the same tick as the file's last change is no reason to skip a check; it
// is never an error either.
func TestLocateDistrustsStamps(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			if err := os.WriteFile(stampPath(path), []byte("v1 trust me\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link to a right one", func(t *testing.T, path string) {
			right := filepath.Join(filepath.Dir(path), "elsewhere")
			if err := os.Rename(stampPath(path), right); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(right, stampPath(path)); err != nil {
				t.Fatal(err)
			}
		}},
		{"others may write it", func(t *testing.T, path string) {
			if err := os.Chmod(stampPath(path), 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{"written in the tick of the last change", func(t *testing.T, path string) {
			var ctime time.Time
			if line, _, ok := stampOf(path, "", ""); ok {
				var ns int64
				f := strings.Fields(line)
				if _, err := fmt.Sscan(f[len(f)-1], &ns); err != nil {
					t.Fatal(err)
				}
				ctime = time.Unix(0, ns)
			}
			if err := os.Chtimes(stampPath(path), ctime, ctime); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, dir, path, runs, _ := checkedCore(t)
			c.spoil(t, path)
			if again, err := locate(src, dir, "1.2.3"); err != nil || again != path {
				t.Fatalf("locate: %q, %v; want %q", again, err, path)
			}
			if n := runsOf(t, runs); n != 2 {
				t.Errorf("the core ran %d times, want 2: checked again", n)
			}
		})
	}
}
