package testbin

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// The benchmarks' steps around one launcher run under a tag (bench/).

// WaitReadyLine reads a launcher's output until its first "ready" line and
// keeps draining the rest in the background, so the launcher never blocks
// on a full pipe. An error means the output ended first: the launcher
// exited before its backend was ready.
func WaitReadyLine(out io.Reader) error {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), " ready pid=") {
			go func() { // ends at the launcher's exit (EOF)
				for sc.Scan() {
				}
			}()
			return nil
		}
	}
	return errors.New("launcher exited before its backend was ready")
}

// WaitTree waits up to d until at least size processes carry tag and
// returns them without the launcher; a short tree is returned as it is, so
// it shows in the counts.
func WaitTree(tag string, size, launcher int, d time.Duration) []int {
	var pids []int
	waitfor.Try(d, func() bool { pids = Tagged(tag); return len(pids) >= size })
	return slices.DeleteFunc(pids, func(p int) bool { return p == launcher })
}

// SweepTagged SIGKILLs whatever still carries tag after a short wait, each
// through an identity-checked signal: only processes a run started carry
// its tag, so nothing else can be hit.
func SweepTagged(tag string) {
	for _, pid := range WaitUntagged(tag, 2*time.Second) {
		if id, err := proc.Lookup(pid); err == nil {
			_ = proc.Signal(id, syscall.SIGKILL)
		}
	}
}
