package testbin

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// TagEnv is the environment variable that marks processes a test created.
const TagEnv = "HERMES_DESKTOP_TEST_TAG"

// Env returns the environment entry that carries tag.
func Env(tag string) string { return TagEnv + "=" + tag }

// Tag returns a tag unique to this test and registers a cleanup that SIGKILLs every process still carrying it when the test ends,
// reporting them as a failure: a correct launcher leaves none behind.
// Processes inherit the tag through their environment, and it is random, so
// nothing the test did not start can carry it.
func Tag(t testing.TB) string {
	t.Helper()
	tag := NewTag()
	t.Cleanup(func() {
		// A tree that was just told to stop may take a moment to be gone;
		// a leak does not go away by waiting.
		left := WaitUntagged(tag, 3*time.Second)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(left) > 0 && !t.Failed() {
			t.Errorf("processes left behind by the test (killed now): %v", left)
		}
	})
	return tag
}

// NewTag returns a fresh random tag.
func NewTag() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Tagged lists the live (non-zombie) processes whose environment carries
// tag, other than the caller.
func Tagged(tag string) []int {
	pids, err := proc.PIDs()
	if err != nil {
		return nil
	}
	needle := []byte(TagEnv + "=" + tag + "\x00")
	var out []int
	for _, pid := range pids {
		if pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !bytes.Contains(append(env, 0), needle) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && isZombie(st) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// WaitTagged waits up to d for at least n processes carrying tag and
// returns them; it fails the test if they never appear.
func WaitTagged(t testing.TB, tag string, n int, d time.Duration) []int {
	t.Helper()
	var pids []int
	if !waitfor.Try(d, func() bool { pids = Tagged(tag); return len(pids) >= n }) {
		t.Fatalf("tagged processes: got %d %v, want %d", len(pids), pids, n)
	}
	return pids
}

// WaitUntagged waits up to d for every process carrying tag to be gone and
// returns those still alive.
func WaitUntagged(tag string, d time.Duration) []int {
	var left []int
	waitfor.Try(d, func() bool { left = Tagged(tag); return len(left) == 0 })
	return left
}
