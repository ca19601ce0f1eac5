package watchdog

import (
	"context"

	"golang.org/x/sys/windows"

	"hermes-desktop/internal/proc"
)

// waitExit waits on the parent's process handle, with an event that ctx
// sets to cancel. The handle keeps the PID from being reused, and the
// creation-time check after opening makes sure it is the parent we meant.
func waitExit(ctx context.Context, p Parent) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(p.PID))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	if p.Start != "" {
		if alive, err := proc.Alive(p.identity()); err == nil && !alive {
			return true
		}
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(ev)
	stop := context.AfterFunc(ctx, func() { windows.SetEvent(ev) })
	defer stop()
	r, err := windows.WaitForMultipleObjects([]windows.Handle{h, ev}, false, windows.INFINITE)
	return err == nil && r == windows.WAIT_OBJECT_0 && ctx.Err() == nil
}
