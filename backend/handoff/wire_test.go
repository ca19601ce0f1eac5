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

// Remote backends go after the local ones; only their listeners cross as
// files, at the fds after every local backend's; the state reads back.
func TestHandoffStateCarriesRemoteBackends(t *testing.T) {
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
	secret := strings.Repeat("ab", 32)
	far := run.RemoteHandover{Host: "me@box", OwnershipID: "0123456789abcdef0123456789abcdef", SpawnNonce: "0123456789abcdef", Secret: secret,
		Nonce: "n3", Shim: self, Backend: self, ClaimSocket: "/home/me/.hermes-desktop/sessions/x.sock", RemotePort: 8642, LocalPort: 41002, Listener: r,
		Socket: "/home/me/.hermes-desktop/netns/0123456789abcdef0123456789abcdef/backend.sock"}
	noListener := far
	noListener.Nonce, noListener.Listener = "n4", nil
	views := []View{
		{Status: model.BackendStatus{Name: "far"}, Remote: true, RemoteHandover: &far},
		{Status: model.BackendStatus{Name: "a"}, Handover: run.Handover{ViaShim: true, Nonce: "n1", Shim: self, Backend: self, Lifeline: w, Stdout: r, Stderr: r}},
		{Status: model.BackendStatus{Name: "far2"}, Remote: true, RemoteHandover: &noListener},
	}
	st, files := NewState(self, "owner", views)
	if want := []*os.File{w, r, r, r}; !reflect.DeepEqual(files, want) {
		t.Fatalf("files: got %v, want the local backend's three, then the remote listener", files)
	}
	if len(st.Backends) != 1 || len(st.Remote) != 2 || st.Remote[0].Listener != 7 || st.Remote[1].Listener != 0 {
		t.Fatalf("layout: got %d local, remote %+v; want 1 local, the listener at fd 7, none for the second", len(st.Backends), st.Remote)
	}
	var buf bytes.Buffer
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil || !reflect.DeepEqual(got, st) {
		t.Fatalf("round trip: got %+v, %v; want %+v", got, err, st)
	}
	h := got.Remote[0].Handover()
	if want := (run.RemoteHandover{Host: far.Host, OwnershipID: far.OwnershipID, SpawnNonce: far.SpawnNonce, Secret: secret, Nonce: "n3",
		Shim: self, Backend: self, ClaimSocket: far.ClaimSocket, RemotePort: 8642, Socket: far.Socket, LocalPort: 41002}); h != want {
		t.Errorf("Handover: got %+v, want %+v", h, want)
	}
	st.Remote[1].Listener = 4 // a local backend's lifeline: never a listener
	buf.Reset()
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(&buf); err == nil || !strings.Contains(err.Error(), "listener fd 4") {
		t.Errorf("got %v, want a stray listener fd refused", err)
	}
}
