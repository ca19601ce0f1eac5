package watchdog

import (
	"context"

	"golang.org/x/sys/windows"

	"hermes-desktop/platform/proc"
)

// exitWatch is a handle on the parent process, signalled when it exits; 0
// means the parent was already gone when it was armed. The handle keeps
// the PID from being reused, and the creation-time check after opening
// makes sure it is the parent we meant.
type exitWatch struct{ h windows.Handle }

// armExit opens the parent's handle; ok is false when it cannot be opened.
func armExit(p Parent) (w exitWatch, ok bool) {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(p.PID))
	if err != nil {
		return exitWatch{}, false
	}
	if p.Start != "" {
		if alive, err := proc.Alive(p.identity()); err == nil && !alive {
			windows.CloseHandle(h)
			return exitWatch{}, true
		}
	}
	return exitWatch{h: h}, true
}

// wait waits on the handle, with an event that ctx sets to cancel.
func (w exitWatch) wait(ctx context.Context) bool {
	if w.h == 0 {
		return true
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(ev)
	stop := context.AfterFunc(ctx, func() { windows.SetEvent(ev) })
	defer stop()
	r, err := windows.WaitForMultipleObjects([]windows.Handle{w.h, ev}, false, windows.INFINITE)
	return err == nil && r == windows.WAIT_OBJECT_0 && ctx.Err() == nil
}

func (w exitWatch) close() {
	if w.h != 0 {
		windows.CloseHandle(w.h)
	}
}
