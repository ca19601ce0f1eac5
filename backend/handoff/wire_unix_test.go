//go:build unix

package handoff

import (
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/platform/proc"
)

// listenersCross: a forward's listening socket is a file Go passes on Unix.
const listenersCross = true

// adoptWithoutJob: Unix has no launcher job; the lifelines bind the trees.
const adoptWithoutJob = protocol.HandoffAdopt

// On Unix a file's number is its position: the state pipe at 3, then
// lifeline, stdout, stderr per backend, in order; the files go to the
// child in that order, and those given away are closed once passed.
func TestHandoffPassesFilesByPosition(t *testing.T) {
	views, r, w := twoBackends(t)
	stateR, stateW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stateW.Close()
	in := newInheritance()
	if n, err := in.file(stateR, true); err != nil || n != StateFD {
		t.Fatalf("state pipe: got fd %d, %v; want %d", n, err, StateFD)
	}
	st, err := newState(views[0].Shim, "owner", views, in)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range st.Backends {
		if b.Lifeline != 4+3*i || b.Stdout != 5+3*i || b.Stderr != 6+3*i || b.Job != 0 {
			t.Errorf("backend %d: fds %d/%d/%d job %d, want %d/%d/%d and none", i, b.Lifeline, b.Stdout, b.Stderr, b.Job, 4+3*i, 5+3*i, 6+3*i)
		}
	}
	var cmd exec.Cmd
	in.attach(&cmd)
	if want := []*os.File{stateR, w, r, r, r, w, w}; !reflect.DeepEqual(cmd.ExtraFiles, want) {
		t.Errorf("ExtraFiles: got %v, want the state pipe, then lifeline, stdout, stderr per backend", cmd.ExtraFiles)
	}
	if arg := AdoptFDArg(StateFD); arg != "--adopt-fd=3" {
		t.Errorf("AdoptFDArg: got %q, want --adopt-fd=3", arg)
	}
	if n, err := in.job(0); n != 0 || err != nil {
		t.Errorf("Job(0): got %d, %v; want nothing passed", n, err)
	}
	if _, err := in.job(7); err == nil {
		t.Error("a job handle was passed on Unix")
	}
	in.release()
	if _, err := stateR.Stat(); err == nil {
		t.Error("the state pipe's read end, given away, is still open after release")
	}
	if _, err := w.Stat(); err != nil {
		t.Errorf("a backend's lifeline, ours, was closed by release: %v", err)
	}
}

func TestReadHandoffStateRefusesAnotherLayout(t *testing.T) {
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		st   State
		want string
	}{
		{"stray fds", State{From: self, Backends: []Backend{{Nonce: "n", Lifeline: 0, Stdout: 1, Stderr: 2}}}, "fds 0/1/2"},
		{"a job", State{From: self, Backends: []Backend{{Nonce: "n", Lifeline: 4, Stdout: 5, Stderr: 6, Job: 7}}}, "job handle"},
		{"a listener at a lifeline's fd", State{From: self, Backends: []Backend{{Nonce: "n", Lifeline: 4, Stdout: 5, Stderr: 6}},
			Remote: []RemoteBackend{{Nonce: "r", Host: "h", Secret: strings.Repeat("ab", 32), ClaimSocket: "/s", Listener: 4}}}, "listener fd 4"},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, tc.st); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&buf, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want it refused (%q)", tc.name, err, tc.want)
		}
	}
}
