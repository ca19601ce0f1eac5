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

// twoBackends are two local backends' views over one pipe's ends.
func twoBackends(t *testing.T) ([]View, *os.File, *os.File) {
	t.Helper()
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return []View{
		{Status: model.BackendStatus{Name: "a", State: model.StateReady, Port: 41000}, Handover: run.Handover{ViaShim: true, Nonce: "n1", Argv: []string{"x", "serve"}, Shim: self, Backend: self, Lifeline: w, Stdout: r, Stderr: r}},
		{Status: model.BackendStatus{Name: "b", State: model.StateReady, Port: 41001}, Handover: run.Handover{ViaShim: true, Nonce: "n2", Argv: []string{"y"}, Shim: self, Backend: self, Lifeline: r, Stdout: w, Stderr: w}},
	}, r, w
}

// newPassing is the real passing with a state pipe's read end passed
// first, as Sender.adopt does; released at the end of the test.
func newPassing(t *testing.T) *inheritance {
	t.Helper()
	stateR, stateW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stateW.Close() })
	in := newInheritance()
	t.Cleanup(in.release)
	if _, err := in.file(stateR, true); err != nil {
		t.Fatal(err)
	}
	return in
}

// The state reads back as written, with the numbers the real passing gave
// (fds on Unix, handles on Windows), while they are passed.
func TestHandoffStateRoundTrip(t *testing.T) {
	views, _, _ := twoBackends(t)
	in := newPassing(t)
	st, err := newState(views[0].Shim, "owner", views, in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("round trip: got %+v, want %+v", got, st)
	}
}

func TestReadHandoffStateRefusesBadStates(t *testing.T) {
	if _, err := Read(strings.NewReader(`{"from":{"pid":0}}`), nil); err == nil {
		t.Error("a state without a valid predecessor was accepted")
	}
	if _, err := Read(strings.NewReader(strings.Repeat(" ", MaxState+10)), nil); err == nil {
		t.Error("an oversized state was accepted")
	}
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, State{From: self, Backends: []Backend{{Lifeline: 4, Stdout: 5, Stderr: 6}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(&buf, nil); err == nil || !strings.Contains(err.Error(), "without a nonce") {
		t.Errorf("got %v, want a backend without a nonce refused", err)
	}
}

// remoteViews are a local backend between two remote ones, the first with
// a listener to pass.
func remoteViews(t *testing.T) ([]View, run.RemoteHandover) {
	t.Helper()
	views, _, _ := twoBackends(t)
	self := views[0].Shim
	far := run.RemoteHandover{Host: "me@box", OwnershipID: "0123456789abcdef0123456789abcdef", SpawnNonce: "0123456789abcdef", Secret: strings.Repeat("ab", 32),
		Nonce: "n3", Shim: self, Backend: self, ClaimSocket: "/home/me/.hermes-desktop/sessions/x.sock", RemotePort: 8642, LocalPort: 41002,
		Socket: "/home/me/.hermes-desktop/netns/0123456789abcdef0123456789abcdef/backend.sock"}
	// The listener is given away (closed once passed): a copy of its own.
	lst, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	if !listenersCross {
		lst.Close()
		lst = nil
	}
	far.Listener = lst
	noListener := far
	noListener.Nonce, noListener.Listener = "n4", nil
	return []View{
		{Status: model.BackendStatus{Name: "far"}, Remote: true, RemoteHandover: &far},
		views[0],
		{Status: model.BackendStatus{Name: "far2"}, Remote: true, RemoteHandover: &noListener},
	}, far
}

// Remote backends go after the local ones; the state reads back, and a
// claim gets what the handover said.
func TestHandoffStateCarriesRemoteBackends(t *testing.T) {
	views, far := remoteViews(t)
	in := newPassing(t)
	st, err := newState(far.Shim, "owner", views, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Backends) != 1 || len(st.Remote) != 2 || (st.Remote[0].Listener != 0) != listenersCross || st.Remote[1].Listener != 0 {
		t.Fatalf("layout: got %d local, remote %+v; want 1 local, a listener for the first where listeners cross, none for the second", len(st.Backends), st.Remote)
	}
	var buf bytes.Buffer
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf, nil)
	if err != nil || !reflect.DeepEqual(got, st) {
		t.Fatalf("round trip: got %+v, %v; want %+v", got, err, st)
	}
	h := got.Remote[0].Handover()
	far.Listener = nil
	if h != far {
		t.Errorf("Handover: got %+v, want %+v", h, far)
	}
}
