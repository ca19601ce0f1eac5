package handoff

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/platform/proc"
)

func TestHandoffStateRoundTrip(t *testing.T) {
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	views := []View{
		{Status: model.BackendStatus{Name: "a", State: model.StateReady, Port: 41000}, Handover: run.Handover{ViaShim: true, Nonce: "n1", Argv: []string{"x", "serve"}, Shim: self, Backend: self, Lifeline: w, Stdout: r, Stderr: r}},
		{Status: model.BackendStatus{Name: "b", State: model.StateReady, Port: 41001}, Handover: run.Handover{ViaShim: true, Nonce: "n2", Argv: []string{"y"}, Shim: self, Backend: self, Lifeline: r, Stdout: w, Stderr: w}},
	}
	st, files := NewState(self, "owner", views)
	wantFiles := []*os.File{w, r, r, r, w, w}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Fatalf("files: got %v, want lifeline, stdout, stderr per backend in order", files)
	}
	for i, b := range st.Backends {
		if b.Lifeline != 4+3*i || b.Stdout != 5+3*i || b.Stderr != 6+3*i {
			t.Errorf("backend %d: fds %d/%d/%d, want %d/%d/%d", i, b.Lifeline, b.Stdout, b.Stderr, 4+3*i, 5+3*i, 6+3*i)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("round trip: got %+v, want %+v", got, st)
	}
	if arg := AdoptFDArg(); arg != "--adopt-fd=3" {
		t.Errorf("AdoptFDArg: got %q, want --adopt-fd=3", arg)
	}
}

func TestReadHandoffStateRefusesAnotherLayout(t *testing.T) {
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	st := State{From: self, FromNonce: "o", Backends: []Backend{{Nonce: "n", Lifeline: 0, Stdout: 1, Stderr: 2}}}
	var buf bytes.Buffer
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(&buf); err == nil || !strings.Contains(err.Error(), "fds 0/1/2") {
		t.Errorf("got %v, want the stray fds refused", err)
	}
	if _, err := Read(strings.NewReader(`{"from":{"pid":0}}`)); err == nil {
		t.Error("a state without a valid predecessor was accepted")
	}
	if _, err := Read(strings.NewReader(strings.Repeat(" ", MaxState+10))); err == nil {
		t.Error("an oversized state was accepted")
	}
}
