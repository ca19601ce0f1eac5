package handles

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// x/sys/windows has SetHandleInformation but not its reader.
var procGetHandleInformation = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetHandleInformation")

// Take makes an inherited handle non-inheritable.
func TestTakeWindows(t *testing.T) {
	var r, w windows.Handle
	sa := windows.SecurityAttributes{InheritHandle: 1} // as a parent passes one down
	sa.Length = uint32(unsafe.Sizeof(sa))
	if err := windows.CreatePipe(&r, &w, &sa, 0); err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(w)
	f, err := Take(uintptr(r), "r")
	if err != nil {
		windows.CloseHandle(r)
		t.Fatal(err)
	}
	defer f.Close() // the file owns r now
	var flags uint32
	if ok, _, _ := procGetHandleInformation.Call(uintptr(r), uintptr(unsafe.Pointer(&flags))); ok == 0 || flags&windows.HANDLE_FLAG_INHERIT != 0 {
		t.Errorf("handle %d after Take: got flags %#x (ok %d), want not inheritable", r, flags, ok)
	}
}
