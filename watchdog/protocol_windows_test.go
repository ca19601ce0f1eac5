package watchdog

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// inheritable reports whether f's handle is marked for inheritance.
func inheritable(t *testing.T, f *os.File) bool {
	t.Helper()
	var flags uint32
	if r, _, err := procGetHandleInformation.Call(f.Fd(), uintptr(unsafe.Pointer(&flags))); r == 0 {
		t.Fatalf("GetHandleInformation %s: %v", f.Name(), err)
	}
	return flags&windows.HANDLE_FLAG_INHERIT != 0
}

// x/sys/windows has SetHandleInformation but not its getter.
var procGetHandleInformation = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetHandleInformation")

// The launcher's ends are never inheritable (os.Pipe makes them so, and a
// process started without a handle list would take the lifeline's write
// end and keep the shim from ever seeing EOF); the shim's ends are, as
// AdditionalInheritedHandles requires, and the flags carry their values.
func TestShimPipesHandles(t *testing.T) {
	p, err := NewShimPipes()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.CloseShimEnds(); p.Lifeline.Close(); p.Report.Close() })
	for _, f := range []*os.File{p.Lifeline, p.Report} {
		if inheritable(t, f) {
			t.Errorf("launcher's end %s: got inheritable, want not", f.Name())
		}
	}
	for k, f := range p.shimEnds {
		if !inheritable(t, f) {
			t.Errorf("shim's end %s: got not inheritable, want inheritable", f.Name())
		}
		if got, want := []int{p.ShimLifeline, p.ShimReport}[k], int(f.Fd()); got != want {
			t.Errorf("shim's end %s: got flag value %d, want its handle %d", f.Name(), got, want)
		}
	}
}

// Attach adds to what the command asks for already: the launcher starts
// the shim in a console group of its own (setupCommand).
func TestShimPipesAttachComposes(t *testing.T) {
	p, err := NewShimPipes()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.CloseShimEnds(); p.Lifeline.Close(); p.Report.Close() })
	cmd := exec.Command("x")
	other := syscall.Handle(1234)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP, AdditionalInheritedHandles: []syscall.Handle{other}}
	if err := p.Attach(cmd); err != nil {
		t.Fatal(err)
	}
	want := []syscall.Handle{other, syscall.Handle(p.ShimLifeline), syscall.Handle(p.ShimReport)}
	if got := cmd.SysProcAttr.AdditionalInheritedHandles; !slices.Equal(got, want) {
		t.Errorf("inherited handles: got %v, want %v", got, want)
	}
	if got := cmd.SysProcAttr.CreationFlags; got != windows.CREATE_NEW_PROCESS_GROUP {
		t.Errorf("creation flags: got %#x, want %#x", got, windows.CREATE_NEW_PROCESS_GROUP)
	}
	p.CloseShimEnds()
	if err := p.Attach(exec.Command("x")); err == nil {
		t.Error("Attach after CloseShimEnds: got no error, want one")
	}
}
