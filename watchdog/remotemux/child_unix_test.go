//go:build unix

package remotemux

import (
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"hermes-desktop/contract/muxwire"
	"hermes-desktop/platform/proc"
)

// TestMuxMainAsARealChild runs the core as ssh would: the test binary
// re-run as the server over its stdin and stdout. It serves an exec and a
// dial, and exits 0 at its stdin's EOF once its children are collected.
func TestMuxMainAsARealChild(t *testing.T) {
	// Pipes of our own, so that Wait never closes the ends we read and
	// write: the session owns them.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], helperServe)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	waited, err := proc.StartChild(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { // ends when the helper exits (the cleanup kills it at worst)
		defer waited()
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited; outR.Close(); inW.Close() })
	stdin := inW

	sess, err := connect(outR, inW)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{sess: sess}
	r := run(t, sess, muxwire.Request{Op: muxwire.OpExec, TimeoutMS: 60_000, Argv: []string{"sh", "-c", "echo child; exit 5"}})
	if r.stdout != "child\n" || r.exit.Code != 5 {
		t.Fatalf("exec through the child core = %+v", r)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	echoServer(t, l)
	got, rep := roundTrip(t, s, muxwire.Request{Op: muxwire.OpDial, Network: muxwire.NetTCP, Port: l.Addr().(*net.TCPAddr).Port}, "x")
	if rep.Error != "" || got != "echo:x" {
		t.Fatalf("dial through the child core = %q %+v", got, rep)
	}
	stdin.Close() // the session's EOF
	if err := <-exited; err != nil {
		t.Fatalf("the core at EOF: %v, want exit 0", err)
	}
	exited <- nil
}

// TestClosedStdoutIsNoSIGPIPE: sshd may close the session's stdout first;
// the core then gets EPIPE on its writes, not a SIGPIPE that would end it
// before its children are collected.
func TestClosedStdoutIsNoSIGPIPE(t *testing.T) {
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR.Close() // nobody reads: the banner's write is the one that breaks
	cmd := exec.Command(os.Args[0], helperServe)
	cmd.Stdout = outW
	err = proc.RunChild(cmd)
	outW.Close()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("the core with a closed stdout: %v, want exit 1", err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() || ws.ExitStatus() != 1 {
		t.Fatalf("the core with a closed stdout: %v, want exit 1 (a failed banner), not a signal", ee)
	}
}
