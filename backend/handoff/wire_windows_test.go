package handoff

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/platform/job"
	"hermes-desktop/platform/proc"
)

// listenersCross: a Windows socket is no file Go can pass on.
const listenersCross = false

// adoptWithoutJob: an instance in no job cannot hand its backends over.
const adoptWithoutJob = protocol.HandoffRestart

// x/sys/windows has SetHandleInformation but not its reader.
var procGetHandleInformation = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetHandleInformation")

// handleFlags reads a handle's flags; ok is false when it names nothing.
func handleFlags(h uintptr) (flags uint32, ok bool) {
	r, _, _ := procGetHandleInformation.Call(h, uintptr(unsafe.Pointer(&flags)))
	return flags, r != 0
}

func inheritable(t *testing.T, h uintptr) bool {
	t.Helper()
	flags, ok := handleFlags(h)
	if !ok {
		t.Fatalf("handle %d: closed", h)
	}
	return flags&windows.HANDLE_FLAG_INHERIT != 0
}

// On Windows a number is a handle's value: an inheritable duplicate made
// for the successor alone (ours stay non-inheritable), each distinct,
// naming the same pipe or job, in the child's handle list, and closed by
// release.
func TestHandoffPassesHandlesByValue(t *testing.T) {
	views, r, w := twoBackends(t)
	for _, f := range []*os.File{r, w} { // as the launcher keeps its ends
		if err := windows.SetHandleInformation(windows.Handle(f.Fd()), windows.HANDLE_FLAG_INHERIT, 0); err != nil {
			t.Fatal(err)
		}
	}
	j, err := job.NewKillOnClose(false)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	views[0].Job = j.Handle()
	in := newInheritance()
	defer in.release()
	st, err := newState(views[0].Shim, "owner", views, in)
	if err != nil {
		t.Fatal(err)
	}
	var passed []int
	for _, b := range st.Backends {
		passed = append(passed, b.Lifeline, b.Stdout, b.Stderr)
	}
	passed = append(passed, st.Backends[0].Job)
	if st.Backends[1].Job != 0 {
		t.Errorf("backend b had no job, got %d passed", st.Backends[1].Job)
	}
	seen := map[int]bool{}
	for _, h := range passed {
		if h == 0 || seen[h] || uintptr(h) == r.Fd() || uintptr(h) == w.Fd() || uintptr(h) == j.Handle() {
			t.Fatalf("handles %v: want distinct duplicates, not ours", passed)
		}
		seen[h] = true
		if !inheritable(t, uintptr(h)) {
			t.Errorf("handle %d: not inheritable", h)
		}
	}
	if inheritable(t, r.Fd()) || inheritable(t, w.Fd()) || inheritable(t, j.Handle()) {
		t.Error("our own handles became inheritable")
	}
	// The lifeline's duplicate writes into the same pipe. Written to by
	// its raw handle: an os.File's finalizer would close it again after
	// release did, maybe a value reused by then.
	var wrote uint32
	if err := windows.WriteFile(windows.Handle(st.Backends[0].Lifeline), []byte("x"), &wrote, nil); err != nil || wrote != 1 {
		t.Fatalf("write through the lifeline's duplicate: wrote %d, %v", wrote, err)
	}
	buf := make([]byte, 1)
	if n, err := r.Read(buf); n != 1 || err != nil || buf[0] != 'x' {
		t.Errorf("read through the pipe: %q, %v", buf[:n], err)
	}
	if _, err := job.Inherit(uintptr(st.Backends[0].Job)); err != nil {
		t.Errorf("the passed job: %v", err)
	}
	var cmd exec.Cmd
	in.attach(&cmd)
	if got := len(cmd.SysProcAttr.AdditionalInheritedHandles); got != len(passed) {
		t.Errorf("the child inherits %d handles, want the %d passed", got, len(passed))
	}
	if _, err := Read(mustWrite(t, st), nil); err != nil {
		t.Errorf("Read of the passed handles: %v", err)
	}
	in.release()
	if _, open := handleFlags(uintptr(st.Backends[1].Stdout)); open {
		t.Error("a duplicate is still open after release")
	}
	if _, err := r.Stat(); err != nil {
		t.Errorf("our own read end was closed by release: %v", err)
	}
}

func mustWrite(t *testing.T, st State) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, st); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// A handle that is no pipe, one named twice, none, one the successor
// already holds (the state pipe's, the launcher job's), or a listener
// handle is refused before anything is taken.
func TestReadHandoffStateRefusesStrayHandles(t *testing.T) {
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
	f, err := os.Create(t.TempDir() + `\not-a-pipe`)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, file := int(r.Fd()), int(w.Fd()), int(f.Fd())
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	defer w2.Close()
	other := int(r2.Fd())
	stateR, stateW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stateR.Close()
	defer stateW.Close()
	launcher, err := job.NewKillOnClose(false)
	if err != nil {
		t.Fatal(err)
	}
	defer launcher.Close()
	held := []int{int(stateR.Fd()), int(launcher.Handle())}
	for _, tc := range []struct {
		name string
		b    Backend
		far  []RemoteBackend
		want string
	}{
		{"the launcher's job as a tree's", Backend{Nonce: "n", Lifeline: pw, Stdout: pr, Stderr: other, Job: held[1]}, nil, "distinct"},
		{"the state pipe as a lifeline", Backend{Nonce: "n", Lifeline: held[0], Stdout: pr, Stderr: other}, nil, "distinct"},
		{"a file as a lifeline", Backend{Nonce: "n", Lifeline: file, Stdout: pr, Stderr: other}, nil, "not a pipe"},
		{"one handle twice", Backend{Nonce: "n", Lifeline: pw, Stdout: pr, Stderr: pr}, nil, "distinct"},
		{"no handle", Backend{Nonce: "n", Lifeline: 0, Stdout: pr, Stderr: other}, nil, "distinct"},
		{"a job that is a lifeline", Backend{Nonce: "n", Lifeline: pw, Stdout: pr, Stderr: other, Job: pw}, nil, "distinct"},
		{"a listener", Backend{Nonce: "n", Lifeline: pw, Stdout: pr, Stderr: other},
			[]RemoteBackend{{Nonce: "r", Host: "h", Secret: strings.Repeat("ab", 32), ClaimSocket: "/s", Listener: int(w2.Fd())}}, "never passes"},
	} {
		_, err := Read(mustWrite(t, State{From: self, Backends: []Backend{tc.b}, Remote: tc.far}), held)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want it refused (%q)", tc.name, err, tc.want)
		}
	}
	ok := Backend{Nonce: "n", Lifeline: pw, Stdout: pr, Stderr: other}
	if _, err := Read(mustWrite(t, State{From: self, Backends: []Backend{ok}}), held); err != nil {
		t.Errorf("three distinct pipes: %v", err)
	}
}
