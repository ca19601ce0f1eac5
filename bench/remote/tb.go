//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hermes-desktop/internal/testbin"
)

// benchTB lets this program use internal/sshtest, whose helpers take a
// testing.TB, outside `go test`: Fatal* unwinds to main (like a test's
// Goexit) and the cleanups run, last registered first, when main ends. The
// embedded TB is nil; every exported method is overridden, so it is never
// called.
type benchTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	failed   bool
	done     sync.Once
}

// fatal is what Fatal* panics with; main recovers it.
type fatal struct{ msg string }

func (t *benchTB) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// runCleanups runs the cleanups once, whoever asks first (main's end or a
// signal).
func (t *benchTB) runCleanups() {
	t.done.Do(func() {
		for {
			t.mu.Lock()
			if len(t.cleanups) == 0 {
				t.mu.Unlock()
				return
			}
			f := t.cleanups[len(t.cleanups)-1]
			t.cleanups = t.cleanups[:len(t.cleanups)-1]
			t.mu.Unlock()
			f()
		}
	})
}

func (t *benchTB) Error(args ...any) { t.Log(args...); t.Fail() }
func (t *benchTB) Errorf(format string, args ...any) {
	t.Logf(format, args...)
	t.Fail()
}
func (t *benchTB) Fail() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}
func (t *benchTB) FailNow() { t.Fail(); panic(fatal{"FailNow"}) }
func (t *benchTB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}
func (t *benchTB) Fatal(args ...any) { t.Fail(); panic(fatal{fmt.Sprint(args...)}) }
func (t *benchTB) Fatalf(format string, args ...any) {
	t.Fail()
	panic(fatal{fmt.Sprintf(format, args...)})
}
func (t *benchTB) Helper()                          {}
func (t *benchTB) Log(args ...any)                  { fmt.Fprintln(os.Stderr, args...) }
func (t *benchTB) Logf(format string, args ...any)  { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (t *benchTB) Name() string                     { return "bench-remote" }
func (t *benchTB) Setenv(key, value string)         { _ = os.Setenv(key, value) }
func (t *benchTB) Chdir(dir string)                 { _ = os.Chdir(dir) }
func (t *benchTB) Skip(args ...any)                 { t.Fatal(append([]any{"skipped: "}, args...)...) }
func (t *benchTB) SkipNow()                         { t.Fatal("skipped") }
func (t *benchTB) Skipf(format string, args ...any) { t.Fatalf("skipped: "+format, args...) }
func (t *benchTB) Skipped() bool                    { return false }
func (t *benchTB) Context() context.Context         { return context.Background() }
func (t *benchTB) Output() io.Writer                { return os.Stderr }
func (t *benchTB) ArtifactDir() string              { return t.TempDir() }
func (t *benchTB) Attr(key, value string)           {}
func (t *benchTB) TempDir() string {
	d, err := os.MkdirTemp("", "bench-remote-")
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// p50p90 are the median and the 90th percentile (the nearest rank).
func p50p90(ds []time.Duration) (time.Duration, time.Duration) {
	slices.Sort(ds)
	rank := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))+0.999)-1)] }
	return rank(0.5), rank(0.9)
}

// signed is fd with a sign, for a difference.
func signed(d time.Duration) string {
	if d < 0 {
		return "-" + fd(-d)
	}
	return "+" + fd(d)
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func fd(d time.Duration) string { return testbin.FormatDuration(d) }

func sshVersion() string {
	out, _ := exec.Command("ssh", "-V").CombinedOutput()
	return strings.TrimSpace(strings.SplitN(string(out), ",", 2)[0])
}

func check(tb *benchTB, err error) {
	if err != nil {
		tb.Fatal(err)
	}
}
