package proc

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// The job package's tests have the same helpers (platform/job).

// helperEnv makes the test binary, re-run as a child, a sleeping helper
// (TestMain) instead of running the tests: a real process with nothing of
// its own to clean up, which only a kill ends early.
const helperEnv = "HERMES_PROC_TEST_HELPER"

// helperLife bounds a helper that nobody kills: long past any test, short
// enough that a helper a crashed test run left behind goes on its own.
const helperLife = 2 * time.Minute

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "sleep" {
		time.Sleep(helperLife)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper is one sleeping child of the test and the only waiter of it.
type helper struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startHelpers starts n sleeping children; cleanup kills those still alive.
func startHelpers(t *testing.T, n int) []*helper {
	t.Helper()
	hs := make([]*helper, n)
	for k := range hs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=sleep")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h := &helper{cmd: cmd, done: make(chan struct{})}
		go func() { _ = cmd.Wait(); close(h.done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Kill() // ours; a no-op once it has exited
			<-h.done
		})
		hs[k] = h
	}
	return hs
}

// gone reports whether h exited within d.
func (h *helper) gone(d time.Duration) bool {
	select {
	case <-h.done:
		return true
	case <-time.After(d):
		return false
	}
}

// memberWait is how long a killed process may take to be seen gone: Windows
// (and Wine) end a terminated process in about a millisecond.
const memberWait = 5 * time.Second

func mustLookup(t *testing.T, pid int) Identity {
	t.Helper()
	id, err := Lookup(pid)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
