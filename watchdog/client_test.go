package watchdog

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestShimClientRoundTrip drives the shim's side of the protocol (the test
// binary as helperShimEnd) through the client, as the launcher and the ssh
// master do: StartShim with the caller's setup and start, Release, the
// report, the stop message, and Close, which the shim sees as its owner's
// end.
func TestShimClientRoundTrip(t *testing.T) {
	var lines <-chan string
	var done <-chan struct{}
	prepare := func(cmd *exec.Cmd) error {
		// The helper takes the shim's flags without the subcommand.
		cmd.Args = append(cmd.Args[:1:1], cmd.Args[2:]...)
		cmd.Env = append(os.Environ(), helperEnv+"="+helperShimEnd)
		cmd.Stderr = os.Stderr
		lines = stdoutLines(t, cmd)
		return nil
	}
	start := func(cmd *exec.Cmd) error {
		done = startWaited(t, cmd)
		return nil
	}
	cmd, c, err := StartShim(os.Args[0], ShimOptions{Parent: Parent{PID: os.Getpid()}, Grace: time.Second, Argv: []string{"backend"}}, prepare, start)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	rep, err := within(t, "the report", c.ReadReport)
	if err != nil || rep.PID != cmd.Process.Pid || rep.Start == "" {
		t.Fatalf("report: got %+v, %v, want pid %d with a start marker", rep, err, cmd.Process.Pid)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := nextLine(t, lines); got != StopMessage {
		t.Errorf("after Stop the shim's side read %q, want %q", got, StopMessage)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := nextLine(t, lines), string(ReasonLifeline); got != want {
		t.Errorf("after Close: got %q, want %q", got, want)
	}
	if st := waitDone(t, cmd, done); st.ExitCode() != 0 {
		t.Errorf("shim's side: got exit code %d, want 0", st.ExitCode())
	}
}

// A start that fails leaves nothing open: the caller gets its error and
// no client.
func TestStartShimFailureClosesThePipes(t *testing.T) {
	_, c, err := StartShim("/nonexistent/hermes-desktop", ShimOptions{Argv: []string{"x"}},
		func(*exec.Cmd) error { return nil }, func(cmd *exec.Cmd) error { return cmd.Start() })
	if err == nil || c != nil {
		t.Fatalf("StartShim of a missing executable: got client %v, error %v, want an error and no client", c, err)
	}
}

// WithoutShimLog keeps what the command said and drops the shim's own
// log lines.
func TestWithoutShimLog(t *testing.T) {
	in := "time=x level=INFO msg=released component=watchdog pid=1\nssh: connect to host box port 22: Connection refused\n"
	if got, want := WithoutShimLog(in), "ssh: connect to host box port 22: Connection refused\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
