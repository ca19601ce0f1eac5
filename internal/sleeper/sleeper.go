// Package sleeper gives tests real processes to act on: the test binary,
// re-run as a child that only sleeps, with nothing of its own to clean up,
// which only a kill ends early. It is test support (internal/: only tests
// import it) and imports nothing of this module, so the lowest packages'
// own tests can use it.
package sleeper

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// env makes the re-run test binary sleep (Main) instead of running tests.
const env = "HERMES_TEST_SLEEPER"

// life bounds a sleeper that nobody kills: long past any test, short enough
// that one a crashed test run left behind goes on its own.
const life = 2 * time.Minute

// Main turns the test binary into a sleeper when Start ran it; call it
// first in TestMain.
func Main() {
	if os.Getenv(env) == "sleep" {
		time.Sleep(life)
		os.Exit(0)
	}
}

// Child is one sleeping child of the test; Start's goroutine is its only
// waiter.
type Child struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts n sleepers; cleanup kills those still alive and waits for
// them.
func Start(t testing.TB, n int) []*Child {
	t.Helper()
	cs := make([]*Child, n)
	for k := range cs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), env+"=sleep")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c := &Child{cmd: cmd, done: make(chan struct{})}
		go func() { _ = cmd.Wait(); close(c.done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Kill() // ours; a no-op once it has exited
			<-c.done
		})
		cs[k] = c
	}
	return cs
}

// PID is the child's process ID.
func (c *Child) PID() int { return c.cmd.Process.Pid }

// Gone reports whether the child exited within d.
func (c *Child) Gone(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

// ExitCode is the child's exit code once Gone has seen it exit; -1 before.
func (c *Child) ExitCode() int {
	select {
	case <-c.done:
		return c.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}
