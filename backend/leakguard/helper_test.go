package leakguard

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// helperEnv makes the test binary a helper process instead of running the
// tests (go-plugin's TestHelperProcess pattern); its value names the
// helper. Helpers stand in for a backend's children on every OS, where the
// tests once ran sleep and sh.
const helperEnv = "HERMES_LEAKGUARD_TEST_HELPER"

// sleeperArg is the helper sleepers' only argument: their command lines are
// identical, as two copies of one MCP server's are.
const sleeperArg = "helper-sleep"

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	os.Exit(m.Run())
}

// runHelper runs one helper:
//   - "sleep" waits for its lifeline (stdin) to close;
//   - "parent" starts two sleepers, says "ready" on stdout once both run,
//     and waits for its own lifeline; its exit closes theirs.
func runHelper(name string) int {
	switch name {
	case "sleep":
		waitLifeline()
		return 0
	case "parent":
		for range 2 {
			if _, err := startSleeper(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fmt.Println("ready") // Start returned: both have exec'd
		waitLifeline()
		return 0
	}
	fmt.Fprintf(os.Stderr, "leakguard test: no helper %q\n", name)
	return 2
}

// waitLifeline returns when stdin reaches EOF: the process holding the
// other end is gone, however it ended. Ten minutes at most, should that
// process leak the pipe to a long-lived one.
func waitLifeline() {
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
	}
}

// helperCmd is the test binary run as the helper name, its stdin a
// lifeline: a pipe whose write end only this process holds (Wait closes
// it), so a helper ends with its parent even if nobody kills it.
func helperCmd(name string, args ...string) (*exec.Cmd, error) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+name)
	if _, err := cmd.StdinPipe(); err != nil {
		return nil, err
	}
	return cmd, nil
}

func startSleeper() (*exec.Cmd, error) {
	cmd, err := helperCmd("sleep", sleeperArg)
	if err == nil {
		err = cmd.Start()
	}
	return cmd, err
}

// startHelper starts the helper name for one test, its stdout read through
// stdout (nil: discarded); the test's cleanup kills it (through the handle
// Start opened: nothing else can be hit) and waits.
func startHelper(t *testing.T, stdout *io.ReadCloser, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd, err := helperCmd(name, args...)
	if err == nil && stdout != nil {
		*stdout, err = cmd.StdoutPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}
